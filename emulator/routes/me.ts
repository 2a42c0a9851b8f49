import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/endpoints.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { presentMe } from '../present/store.js';

// spec: Endpoints, GET /me — never 403 (DESIGN): a suspended integration reads its status here.
export function meRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  apiRoute(app, env, emulator, api.getMe, ({ auth }) => ok(presentMe(env, auth.integration, auth.store, auth.credential)));
}
