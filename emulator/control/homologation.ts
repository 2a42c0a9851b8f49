import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { controlHomologationRecorder, controlHomologationStart } from '../../src/contract/control.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import { homologationService } from '../homologation/observer-state.js';
import { integrationParam, resolvedEnvironment } from '../http/control-access.js';

type Params = { Params: { integration_id: string } };

// The observer's sessions and reports (with the checks that grade them) load with the first call that
// needs them: an emulator start does not compile them. The recorder's hooks (homologation/hooks.ts)
// stay loaded, since they see every API call.
const observer = () => import('../homologation/observe.js');

/** DESIGN: control API — the observed homologation of an integration. */
export function homologationControl(app: FastifyInstance, emulator: Emulator): void {
  app.post<Params>('/homologation/:integration_id/start', integrationParam(), async (request, reply) => {
    const body = parseOrThrow(controlHomologationStart, request.body ?? {});
    const { observerReport, startSession } = await observer();
    await startSession(emulator, resolvedEnvironment(request), request.params.integration_id, body.timeout_seconds);
    reply.code(201);
    return { data: await observerReport(emulator, resolvedEnvironment(request), request.params.integration_id) };
  });

  app.get<Params>('/homologation/:integration_id', integrationParam(), async (request) => {
    const { observerReport } = await observer();
    return { data: await observerReport(emulator, resolvedEnvironment(request), request.params.integration_id) };
  });

  // The recorder records every integration's calls: the admin's switch.
  app.post('/homologation/recorder', async (request) => {
    const { enabled } = parseOrThrow(controlHomologationRecorder, request.body ?? {});
    homologationService(emulator).recording = enabled;
    return { data: { enabled } };
  });
}
