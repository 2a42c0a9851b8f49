import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { controlHomologationRecorder, controlHomologationStart } from '../../src/contract/control.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import { homologationService, observerReport, startSession } from '../homologation/index.js';

type Params = { Params: { integration_id: string } };

/** DESIGN: control API — the observed homologation of an integration. */
export function homologationControl(app: FastifyInstance, emulator: Emulator): void {
  app.post<Params>('/homologation/:integration_id/start', async (request, reply) => {
    const body = parseOrThrow(controlHomologationStart, request.body ?? {});
    await startSession(emulator, request.params.integration_id, body.timeout_seconds);
    reply.code(201);
    return { data: await observerReport(emulator, request.params.integration_id) };
  });

  app.get<Params>('/homologation/:integration_id', async (request) => ({ data: await observerReport(emulator, request.params.integration_id) }));

  app.post('/homologation/recorder', async (request) => {
    const { enabled } = parseOrThrow(controlHomologationRecorder, request.body ?? {});
    homologationService(emulator).recording = enabled;
    return { data: { enabled } };
  });
}
