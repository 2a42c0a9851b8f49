import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Emulator } from '../emulator.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import { homologationService, observerReport, SESSION_TIMEOUT, startSession } from '../homologation/index.js';

type Params = { Params: { integration_id: string } };

// Control-only bodies (not part of the API contract of src/contract).
const startBody = z.strictObject({
  timeout_seconds: z.int().min(SESSION_TIMEOUT.min).max(SESSION_TIMEOUT.max).optional(),
});
/** BENCH-ONLY: switches the call recorder off and on to measure its cost (docs/homologation.md). */
const recorderBody = z.strictObject({ enabled: z.boolean() });

/** DESIGN: control API — the observed homologation of an integration. */
export function homologationControl(app: FastifyInstance, emulator: Emulator): void {
  app.post<Params>('/homologation/:integration_id/start', async (request, reply) => {
    const body = parseOrThrow(startBody, request.body ?? {});
    startSession(emulator, request.params.integration_id, body.timeout_seconds);
    reply.code(201);
    return { data: observerReport(emulator, request.params.integration_id) };
  });

  app.get<Params>('/homologation/:integration_id', async (request) => ({ data: observerReport(emulator, request.params.integration_id) }));

  app.post('/homologation/recorder', async (request) => {
    const { enabled } = parseOrThrow(recorderBody, request.body ?? {});
    homologationService(emulator).recorder.enabled = enabled;
    return { data: { enabled } };
  });
}
