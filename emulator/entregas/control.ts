import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Emulator } from '../emulator.js';
import { ApiError } from '../../src/contract/errors.js';
import { controlBody } from '../http/control-body.js';
import { deliverEntrega, entregaOfStore } from './actions.js';
import { courierView } from './present.js';
import { formatDate } from '../../src/contract/dates.js';
import { ownedBy, resolvedEnvironment } from '../http/control-access.js';

/** The delivery's store (a store token reaches its own store's deliveries only). */
const entregaOwner = ownedBy(async (store, request) => (await store.entregas.byId((request.params as { id: string }).id))?.storeId);
const trackingOwner = ownedBy(async (store, request) => (await store.entregas.byTrackingToken((request.params as { token: string }).token))?.storeId);

type IdParams = { Params: Record<string, string> };
const deliverBody = z.strictObject({ delivery_code: z.string().min(1).max(10) });

/** The courier's side and the customer's tracking page of independent deliveries. */
export function entregasControl(app: FastifyInstance, emulator: Emulator): void {
  // The courier's view: never the customer's private code nor tracking link.
  app.get<IdParams>('/entregas/:id', entregaOwner, async (request) => {
    const id = request.params.id!;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.entregas.byId(id));
    if (!env) throw ApiError.of('not_found');
    return { data: courierView(await entregaOfStore(env.store, null, id)) };
  });

  // The courier hands over the goods with the code the customer gives them.
  app.post<IdParams>('/entregas/:id/deliver', entregaOwner, async (request) => {
    const id = request.params.id!;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.entregas.byId(id));
    if (!env) throw ApiError.of('not_found');
    const { delivery_code } = controlBody(deliverBody, request.body);
    return { data: courierView(await deliverEntrega(env, id, delivery_code)) };
  });

  // The customer's tracking page (the link is the secret): status only.
  app.get<IdParams>('/tracking/:token', trackingOwner, async (request) => {
    const token = request.params.token!;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.entregas.byTrackingToken(token));
    const e = await env?.store.entregas.byTrackingToken(token);
    if (!e) throw ApiError.of('not_found');
    return { data: { status: e.status, updated_at: formatDate(e.updatedAt) } };
  });
}
