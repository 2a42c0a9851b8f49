import type { FastifyInstance } from 'fastify';
import { OPENAPI_PATH, openApiJson } from '../../src/contract/openapi.js';
import type { Emulator } from '../emulator.js';

let body: Buffer | undefined;

/**
 * spec: Versioning 1 — the OpenAPI 1.0.4 document at `/v1/openapi.json` and `/sandbox/v1/openapi.json`,
 * the one route that needs no credential (`config.public` skips auth and rate limits in env-plugin).
 * Built on the first call and kept, encoded, for the life of the process.
 */
export function openapiRoutes(app: FastifyInstance, _emulator: Emulator): void {
  app.get(OPENAPI_PATH, { config: { public: true } }, async (_request, reply) => {
    body ??= Buffer.from(openApiJson(), 'utf8');
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
