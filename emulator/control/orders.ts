import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import { panelOrderPatch, panelStatusChangeBody, simulateOrderRequest } from '../../src/contract/orders.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { simulateOrder } from '../orders/simulator.js';
import { changeStatus, markPaid } from '../orders/service.js';
import { presentOrder } from '../orders/present.js';

type OrderParams = { Params: { order_id: string } };

function bodyOf(body: unknown): unknown {
  if (body === undefined) throw ApiError.of('malformed_json', undefined, 'Esta operación requiere un cuerpo JSON.');
  return body;
}

/** The environment holding an order (ids are looked up in both); 404 when neither has it. */
function orderEnv(emulator: Emulator, orderId: string): EnvContext {
  const env = emulator.envOf((e) => e.orders.byId(orderId));
  if (!env) throw ApiError.of('not_found', undefined, 'El pedido no existe.');
  return env;
}

/** DESIGN: control API — the sandbox's order simulator and the panel's and customer's order actions. */
export function ordersControl(app: FastifyInstance, emulator: Emulator): void {
  app.post('/orders', async (request, reply) => {
    const body = parseOrThrow(simulateOrderRequest, bodyOf(request.body));
    const env = emulator.envOf((e) => e.stores.byId(body.store_id));
    if (!env) throw ApiError.of('not_found', undefined, 'No existe ese comercio.');
    const order = simulateOrder(env, body);
    return reply.code(201).send({ data: presentOrder(env, order) });
  });

  app.get<OrderParams>('/orders/:order_id', async (request) => {
    const env = orderEnv(emulator, request.params.order_id);
    return { data: presentOrder(env, env.orders.byId(request.params.order_id)!) };
  });

  // Same machine as the API, with `by` customer, store_user or system (DESIGN: order_status_authority).
  app.post<OrderParams>('/orders/:order_id/status', async (request) => {
    const { by, ...change } = parseOrThrow(panelStatusChangeBody, bodyOf(request.body));
    const env = orderEnv(emulator, request.params.order_id);
    const order = changeStatus(env, request.params.order_id, null, { type: by, integrationId: null }, change);
    return { data: presentOrder(env, order) };
  });

  app.patch<OrderParams>('/orders/:order_id', async (request) => {
    parseOrThrow(panelOrderPatch, bodyOf(request.body));
    const env = orderEnv(emulator, request.params.order_id);
    return { data: presentOrder(env, markPaid(env, request.params.order_id)) };
  });
}
