import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import { panelOrderPatch, panelStatusChangeBody, simulateOrderRequest } from '../../src/contract/orders.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { simulateOrderIfStore } from './simulator.js';
import type { OrderRecord } from './repository.js';
import { changeStatus, markPaid } from './commands.js';
import { presentAnswer, presentOrder } from './present.js';
import { ownedBy, resolvedEnvironment, storeInBody } from '../http/control-access.js';
import { requireBody } from '../http/route.js';

const NO_ORDER = 'El pedido no existe.';
const NO_STORE = 'No existe ese comercio.';
/** The order's store (a store token reaches its own store's orders only). */
const orderOwner = ownedBy(async (store, request) => (await store.orders.byId((request.params as { order_id: string }).order_id))?.storeId, NO_ORDER);

type OrderParams = { Params: { order_id: string } };


/** The environment holding an order: the token's own, or either for the admin; 404 when none has it. */
async function orderEnv(emulator: Emulator, request: FastifyRequest, orderId: string): Promise<EnvContext> {
  const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.orders.byId(orderId));
  if (!env) throw ApiError.of('not_found', undefined, NO_ORDER);
  return env;
}

/** DESIGN: control API — the sandbox's order simulator and the panel's and customer's order actions. */
export function ordersControl(app: FastifyInstance, emulator: Emulator): void {
  app.post('/orders', storeInBody(NO_STORE), async (request, reply) => {
    const body = parseOrThrow(simulateOrderRequest, requireBody(request.body));
    // The simulation's transaction reads the store first: it finds the store's environment (none
    // is written where the store is not), with no read of the store of its own before it (issue 25).
    let order: OrderRecord | undefined;
    const env = await emulator.envOf(resolvedEnvironment(request), async (e) => (order = await simulateOrderIfStore(e, body)) !== undefined);
    if (!env || !order) throw ApiError.of('not_found', undefined, NO_STORE);
    // The order as its transaction presented it for its event: no read after the commit.
    return reply.code(201).send({ data: await presentAnswer(env.store.orders, order) });
  });

  app.get<OrderParams>('/orders/:order_id', orderOwner, async (request) => {
    const env = await orderEnv(emulator, request, request.params.order_id);
    return { data: await presentOrder(env.store.orders, (await env.store.orders.byId(request.params.order_id))!) };
  });

  // Same machine as the API, with `by` customer, store_user or system (DESIGN: order_status_authority).
  app.post<OrderParams>('/orders/:order_id/status', orderOwner, async (request) => {
    const { by, ...change } = parseOrThrow(panelStatusChangeBody, requireBody(request.body));
    const env = await orderEnv(emulator, request, request.params.order_id);
    const order = await changeStatus(env, request.params.order_id, null, { type: by, integrationId: null }, change);
    return { data: await presentOrder(env.store.orders, order) };
  });

  app.patch<OrderParams>('/orders/:order_id', orderOwner, async (request) => {
    parseOrThrow(panelOrderPatch, requireBody(request.body));
    const env = await orderEnv(emulator, request, request.params.order_id);
    return { data: await presentOrder(env.store.orders, await markPaid(env, request.params.order_id)) };
  });
}
