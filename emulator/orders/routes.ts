import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/orders-endpoints.js';
import { ApiError } from '../../src/contract/errors.js';
import { parseDate } from '../../src/contract/dates.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok, type Outcome } from '../http/route.js';
import { isPromise } from '../store/maybe.js';
import type { AdmitRead } from '../store/port.js';
import { acknowledge, changeStatus, reportImportFailure } from './commands.js';
import { keptView, presentAnswer, presentOrder } from './present.js';
import type { OrderRecord } from './repository.js';
import { orderBodyText } from './order-text.js';
import { decodeOrderCursor, encodeOrderCursor } from './cursors.js';
import { feedPrefetch, readFeed } from './feed.js';

const since = (text: string | undefined) => (text === undefined ? null : parseDate(text));

/**
 * What of the order a route's path names is read with the request's admission (a server database):
 * the order with its history (GET /orders/{id}), or its status alone (a status call's).
 */
const prefetchOf = (kind: 'order' | 'orderStatus') => ({ params }: { params: unknown }): AdmitRead | undefined => {
  const orderId = (params as { order_id?: unknown }).order_id;
  return typeof orderId === 'string' ? { kind, orderId } : undefined;
};
const orderPrefetch = prefetchOf('order');
const statusPrefetch = prefetchOf('orderStatus');

/** A command's answer as its handler gives it (`ok(presentAnswer(…))`), when its transaction kept the order's view. */
function keptOutcome(out: unknown): Outcome | undefined {
  const view = keptView(out as OrderRecord);
  return view && ok(view);
}

const orderWrite = { claimsWithWork: true, outcomeOfWork: keptOutcome };

/** spec: Endpoints — orders (read, import confirmation, failures, statuses) and the event feed. */
export function ordersRoutes(app: FastifyInstance, emulator: Emulator): void {
  // spec: GET /orders — oldest first; DESIGN: ack_status=pending is exactly the pending ones.
  apiRoute(app, emulator, api.listOrders, async ({ env, auth, query }) => {
    const orders = env.store.orders;
    const afterNumber = query.cursor === undefined ? 0 : decodeOrderCursor(query.cursor);
    const rows = await orders.list({
      storeId: auth.store.id,
      afterNumber,
      limit: query.limit + 1,
      statuses: query.status ?? null,
      ackStatus: query.ack_status ?? null,
      createdSince: since(query.created_since),
      updatedSince: since(query.updated_since),
    });
    const page = rows.slice(0, query.limit);
    const next = rows.length > query.limit ? encodeOrderCursor(page.at(-1)!.number) : null;
    const data = [];
    for (const o of page) data.push(await presentOrder(orders, o));
    return { body: { data, next_cursor: next } };
  });

  apiRoute(app, emulator, api.getOrderByExternalId, async ({ env, auth, params }) => {
    const orders = env.store.orders;
    const order = await orders.byExternalId(auth.store.id, params.external_id);
    if (!order) throw ApiError.of('not_found', undefined, 'No hay un pedido confirmado con ese código externo.');
    return ok(await presentOrder(orders, order));
  });

  // Integrations poll this one: a kept body answers without a promise (order-text.ts).
  apiRoute(app, emulator, api.getOrder, ({ env, auth, params, request }): Outcome | Promise<Outcome> => {
    const text = orderBodyText(env, params.order_id, auth.store.id, request.prefetch);
    return isPromise(text) ? text.then((body) => ({ body })) : { body: text };
  }, { prefetch: orderPrefetch });

  // The writes: each one unit of work, which takes the idempotency key's claim in its first round
  // trip and, when it wrote the order (its view kept for the event), stores the answer in its COMMIT.
  apiRoute(app, emulator, api.ackOrder, async ({ env, auth, params, body, claim }) =>
    ok(await presentAnswer(env.store.orders, await acknowledge(env, params.order_id, auth.store.id, auth.integration.id, body, claim))),
  orderWrite);

  apiRoute(app, emulator, api.reportImportFailure, async ({ env, auth, params, body, claim }) =>
    ok(await presentAnswer(env.store.orders, await reportImportFailure(env, params.order_id, auth.store.id, auth.integration.id, body, claim))),
  orderWrite);

  apiRoute(app, emulator, api.changeOrderStatus, async ({ env, auth, params, body, claim }) => {
    const actor = { type: 'integration' as const, integrationId: auth.integration.id, authority: auth.integration.settings.order_status_authority };
    return ok(await presentAnswer(env.store.orders, await changeStatus(env, params.order_id, auth.store.id, actor, body, claim)));
    // The homologation recorder's starting status comes with the admission (homologation/hooks.ts).
  }, { prefetch: statusPrefetch, ...orderWrite });

  // spec: GET /events — the feed response is its own envelope (data, next_cursor, has_more, cursor_expired).
  apiRoute(app, emulator, api.listEvents, async ({ env, auth, query, request }) => ({ body: await readFeed(env, auth.integration, query, request.prefetch?.feed) }), {
    prefetch: feedPrefetch,
  });
}
