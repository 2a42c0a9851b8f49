import type { FastifyInstance } from 'fastify';
import { listEvents } from '../../src/contract/orders-endpoints.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute } from '../http/route.js';
import { readFeed } from '../orders/feed.js';

export function eventsRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  // spec: GET /events — the feed response is its own envelope (data, next_cursor, has_more, cursor_expired).
  apiRoute(app, env, emulator, listEvents, ({ auth, query }) => ({ body: readFeed(env, auth.integration, query) }));
}
