import { storesRoutes } from './stores/routes.js';
import { catalogRoutes } from './catalog/routes.js';
import { ordersRoutes } from './orders/routes.js';
import { webhooksRoutes } from './webhooks/routes.js';
import { entregasRoutes } from './entregas/routes.js';
import { openapiRoutes } from './http/openapi-route.js';
import type { RouteRegistrar } from './api/env-plugin.js';
import { systemRoutes } from './control/system.js';
import { storesControl } from './stores/control.js';
import { catalogControl } from './catalog/control.js';
import { ordersControl } from './orders/control.js';
import { webhooksControl } from './webhooks/control.js';
import { entregasControl } from './entregas/control.js';
import { homologationControl } from './control/homologation.js';
import { panelControl } from './control/panel.js';
import { exportControl } from './control/export.js';
import { logsControl } from './control/logs.js';
import type { ControlRegistrar } from './control/index.js';
import { accessControl } from './access/control.js';
import { certificatesControl } from './certificates/control.js';

// The lists of what the app mounts, kept at the root and handed to the plugins that mount them
// (app.ts): a new aggregate is one line here, and http/ and control/ know none of them.

/** Every aggregate's API routes, registered under each environment's base path (one list, in the spec's order). */
export const API_ROUTES: RouteRegistrar[] = [storesRoutes, catalogRoutes, ordersRoutes, webhooksRoutes, entregasRoutes, openapiRoutes];

/** Every group of control routes: the aggregates' own, then the sandbox's cross-cutting ones. */
export const CONTROL_ROUTES: ControlRegistrar[] = [
  systemRoutes, storesControl, catalogControl, ordersControl, webhooksControl, entregasControl, homologationControl, panelControl, exportControl, logsControl,
  accessControl, certificatesControl,
];
