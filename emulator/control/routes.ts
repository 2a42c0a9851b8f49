import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { systemRoutes } from './system.js';
import { storesControl } from './stores.js';
import { catalogControl } from './catalog.js';
import { ordersControl } from './orders.js';
import { webhooksControl } from './webhooks.js';
import { entregasControl } from './entregas.js';
import { homologationControl } from './homologation.js';
import { panelControl } from './panel.js';
import { exportControl } from './export.js';
import { logsControl } from './logs.js';

export type ControlRegistrar = (app: FastifyInstance, emulator: Emulator) => void;

/** Every group of control routes. */
export const CONTROL_ROUTES: ControlRegistrar[] = [
  systemRoutes, storesControl, catalogControl, ordersControl, webhooksControl, entregasControl, homologationControl, panelControl, exportControl, logsControl,
];
