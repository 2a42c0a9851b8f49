import type { FastifyInstance } from 'fastify';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { meRoutes } from './me.js';
import { storeRoutes } from './store.js';
import { catalogRoutes } from './catalog.js';
import { batchRoutes } from './batch.js';
import { ordersRoutes } from './orders.js';
import { eventsRoutes } from './events.js';
import { webhooksRoutes } from './webhooks.js';
import { entregasRoutes } from './entregas.js';
import { openapiRoutes } from './openapi.js';

export type RouteRegistrar = (app: FastifyInstance, env: EnvContext, emulator: Emulator) => void;

/** Every resource's routes, registered under each environment's base path. */
export const API_ROUTES: RouteRegistrar[] = [
  meRoutes, storeRoutes, catalogRoutes, batchRoutes, ordersRoutes, eventsRoutes, webhooksRoutes, entregasRoutes, openapiRoutes,
];
