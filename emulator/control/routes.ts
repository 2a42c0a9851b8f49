import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { systemRoutes } from './system.js';
import { storesControl } from '../stores/control.js';
import { catalogControl } from '../catalog/control.js';
import { ordersControl } from '../orders/control.js';
import { webhooksControl } from '../webhooks/control.js';
import { entregasControl } from '../entregas/control.js';
import { homologationControl } from './homologation.js';
import { panelControl } from './panel.js';
import { exportControl } from './export.js';
import { logsControl } from './logs.js';

export type ControlRegistrar = (app: FastifyInstance, emulator: Emulator) => void;

/** Every group of control routes: the aggregates' own, then the sandbox's cross-cutting ones. */
export const CONTROL_ROUTES: ControlRegistrar[] = [
  systemRoutes, storesControl, catalogControl, ordersControl, webhooksControl, entregasControl, homologationControl, panelControl, exportControl, logsControl,
];
