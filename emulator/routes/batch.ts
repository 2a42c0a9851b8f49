import type { FastifyInstance } from 'fastify';
import { postBatch } from '../../src/contract/endpoints.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { runBatch } from '../catalog/batch-run.js';

/** spec: Endpoints, POST /catalog/batch. */
export function batchRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  // runBatch parses the envelope itself: the operation count (413) comes before any 422 (spec: Limits).
  apiRoute(app, env, emulator, postBatch, async ({ auth, rawBody }) => ok(await runBatch(env, emulator, auth.integration, rawBody)), {
    parsesBodyItself: true,
  });
}
