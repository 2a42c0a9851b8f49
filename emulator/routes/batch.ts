import type { FastifyInstance } from 'fastify';
import { postBatch } from '../../src/contract/endpoints.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { runBatch } from '../catalog/batch-run.js';

// The body is read by runBatch rather than by apiRoute: the spec wants the operation count checked
// (413) before anything else of the envelope (Limits: "none processed").
const { body: _envelope, ...postBatchUnparsed } = postBatch;

/** spec: Endpoints, POST /catalog/batch. */
export function batchRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  apiRoute(app, env, emulator, postBatchUnparsed, async ({ auth, rawBody }) => ok(await runBatch(env, emulator, auth.integration, rawBody)), { readsRawBody: true });
}
