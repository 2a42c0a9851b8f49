// The homologation observer: the call recorder (always on), observed sessions, the report.
export { registerHomologation } from './hooks.js';
export { homologationService, HomologationService } from './service.js';
export { observerReport, startSession } from './observe.js';
