/**
 * Deepest nesting the listener and `feed tail` accept in an event. A real event is about eight
 * levels deep (envelope → data → order → items → options → option); 128 is serde_json's default
 * and leaves room for additions. Deeper bodies are refused before anything recursive
 * (`JSON.stringify`, a printer, the app's own parser) sees them.
 */
export const MAX_EVENT_DEPTH = 128;

// The scan itself is the one the emulator and the proxy use for their own bound.
export { nestedDeeperThan } from '../../../server/json-depth.js';
