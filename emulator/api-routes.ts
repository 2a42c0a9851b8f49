import type { FastifyInstance } from 'fastify';
import type { EnvContext } from './context.js';
import type { Emulator } from './emulator.js';
import { storesRoutes } from './stores/routes.js';
import { catalogRoutes } from './catalog/routes.js';
import { ordersRoutes } from './orders/routes.js';
import { webhooksRoutes } from './webhooks/routes.js';
import { entregasRoutes } from './entregas/routes.js';
import { openapiRoutes } from './http/openapi-route.js';

export type RouteRegistrar = (app: FastifyInstance, env: EnvContext, emulator: Emulator) => void;

/** Every aggregate's API routes, registered under each environment's base path (one list, in the spec's order). */
export const API_ROUTES: RouteRegistrar[] = [storesRoutes, catalogRoutes, ordersRoutes, webhooksRoutes, entregasRoutes, openapiRoutes];
