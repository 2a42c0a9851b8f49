import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Emulator } from '../emulator.js';
import { ApiError } from '../../src/contract/errors.js';
import { controlBody } from './parse.js';
import { deliverEntrega, entregaOfStore } from '../entregas/actions.js';
import { courierView } from '../entregas/present.js';
import { formatDate } from '../../src/contract/dates.js';

type IdParams = { Params: Record<string, string> };
const deliverBody = z.strictObject({ delivery_code: z.string().min(1).max(10) });

/** The courier's side and the customer's tracking page of independent deliveries. */
export function entregasControl(app: FastifyInstance, emulator: Emulator): void {
  // The courier's view: never the customer's private code nor tracking link.
  app.get<IdParams>('/entregas/:id', async (request) => {
    const env = emulator.envOf((e) => e.entregas.byId(request.params.id));
    if (!env) throw ApiError.of('not_found');
    return { data: courierView(entregaOfStore(env, null, request.params.id)) };
  });

  // The courier hands over the goods with the code the customer gives them.
  app.post<IdParams>('/entregas/:id/deliver', async (request) => {
    const env = emulator.envOf((e) => e.entregas.byId(request.params.id));
    if (!env) throw ApiError.of('not_found');
    const { delivery_code } = controlBody(deliverBody, request.body);
    return { data: courierView(deliverEntrega(env, request.params.id, delivery_code)) };
  });

  // The customer's tracking page (the link is the secret): status only.
  app.get<IdParams>('/tracking/:token', async (request) => {
    const env = emulator.envOf((e) => e.entregas.byTrackingToken(request.params.token));
    const e = env?.entregas.byTrackingToken(request.params.token);
    if (!e) throw ApiError.of('not_found');
    return { data: { status: e.status, updated_at: formatDate(e.updatedAt) } };
  });
}
