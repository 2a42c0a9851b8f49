import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/orders-endpoints.js';
import { ApiError } from '../../src/contract/errors.js';
import { parseDate } from '../../src/contract/dates.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { acknowledge, changeStatus, reportImportFailure } from '../orders/service.js';
import { presentOrder } from '../orders/present.js';
import { orderBodyText } from '../orders/order-text.js';
import { decodeOrderCursor, encodeOrderCursor } from '../orders/cursors.js';

const since = (text: string | undefined) => (text === undefined ? null : parseDate(text));

export function ordersRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  // spec: GET /orders — oldest first; DESIGN: ack_status=pending is exactly the pending ones.
  apiRoute(app, env, emulator, api.listOrders, ({ auth, query }) => {
    const afterNumber = query.cursor === undefined ? 0 : decodeOrderCursor(query.cursor);
    const rows = env.orders.list({
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
    return { body: { data: page.map((o) => presentOrder(env, o)), next_cursor: next } };
  });

  apiRoute(app, env, emulator, api.getOrderByExternalId, ({ auth, params }) => {
    const order = env.orders.byExternalId(auth.store.id, params.external_id);
    if (!order) throw ApiError.of('not_found', undefined, 'No hay un pedido confirmado con ese código externo.');
    return ok(presentOrder(env, order));
  });

  apiRoute(app, env, emulator, api.getOrder, ({ auth, params }) => ({ body: orderBodyText(env, params.order_id, auth.store.id) }));

  apiRoute(app, env, emulator, api.ackOrder, ({ auth, params, body }) =>
    ok(presentOrder(env, acknowledge(env, params.order_id, auth.store.id, auth.integration.id, body))),
  );

  apiRoute(app, env, emulator, api.reportImportFailure, ({ auth, params, body }) =>
    ok(presentOrder(env, reportImportFailure(env, params.order_id, auth.store.id, auth.integration.id, body))),
  );

  apiRoute(app, env, emulator, api.changeOrderStatus, ({ auth, params, body }) => {
    const actor = { type: 'integration' as const, integrationId: auth.integration.id };
    return ok(presentOrder(env, changeStatus(env, params.order_id, auth.store.id, actor, body)));
  });
}
