import {
  deleteCategory, deleteProduct, getMe, getStore, listCategories, listProducts, patchOption, patchProduct, patchStore,
  postBatch, putCategory, putProduct,
} from '../contract/endpoints.js';
import {
  ackOrder, changeOrderStatus, getOrder, getOrderByExternalId, listEvents, listOrders, reportImportFailure,
} from '../contract/orders-endpoints.js';
import {
  createEntrega, entregaActionEndpoint, getEntrega, getWebhook, listWebhookDeliveries, putWebhook, retryWebhookDelivery,
  rotateWebhookSecret, testWebhook,
} from '../contract/webhooks-endpoints.js';
import type { z } from 'zod';
import type { EntregaAction, entregaActionBodies } from '../contract/entregas.js';
import type { MerchantClient } from './merchant-client.js';
import type { Paginator } from './paginator.js';
import type { AnyEndpoint, ApiResponse, BodyOf, CallOptions, DataOf, ItemOf, QueryOf, RequestOptions, ResponseOf } from './types.js';

type Caller = Pick<MerchantClient, 'request' | 'paginate'>;

/** The envelope's `data` of one call. */
async function dataOf<E extends AnyEndpoint>(client: Caller, endpoint: E, options: RequestOptions<E>): Promise<DataOf<E>> {
  const response: ApiResponse<E> = await client.request(endpoint, options);
  return response.data;
}

export function meCall(client: Caller, options: CallOptions = {}): Promise<DataOf<typeof getMe>> {
  return dataOf(client, getMe, options);
}

export function storeGroup(client: Caller) {
  return {
    /** GET /store */
    get: (options: CallOptions = {}): Promise<DataOf<typeof getStore>> => dataOf(client, getStore, options),
    /** PATCH /store — `{ accepting_orders }`: open or pause order intake. */
    patch: (body: BodyOf<typeof patchStore>, options: CallOptions = {}): Promise<DataOf<typeof patchStore>> =>
      dataOf(client, patchStore, { ...options, body }),
  };
}

export function catalogGroup(client: Caller) {
  return {
    categories: {
      /** GET /catalog/categories — every category, page by page. */
      list: (query: QueryOf<typeof listCategories> = {}, options: CallOptions = {}): Paginator<ItemOf<typeof listCategories>> =>
        client.paginate(listCategories, query, options),
      /** PUT /catalog/categories/{external_id} — create (201) or update (200); returns the upsert result. */
      put: (externalId: string, body: BodyOf<typeof putCategory>, options: CallOptions = {}): Promise<DataOf<typeof putCategory>> =>
        dataOf(client, putCategory, { ...options, params: { external_id: externalId }, body }),
      /** DELETE /catalog/categories/{external_id} — deactivates (409 category_not_empty with active products). */
      delete: (externalId: string, options: CallOptions = {}): Promise<DataOf<typeof deleteCategory>> =>
        dataOf(client, deleteCategory, { ...options, params: { external_id: externalId } }),
    },
    products: {
      /** GET /catalog/products — products with their option groups, page by page. */
      list: (query: QueryOf<typeof listProducts> = {}, options: CallOptions = {}): Paginator<ItemOf<typeof listProducts>> =>
        client.paginate(listProducts, query, options),
      /** PUT /catalog/products/{external_id} — `linkToId` links a panel product (`prd_…`) to this code. */
      put: (
        externalId: string,
        body: BodyOf<typeof putProduct>,
        { linkToId, ...options }: CallOptions & { linkToId?: string } = {},
      ): Promise<DataOf<typeof putProduct>> =>
        dataOf(client, putProduct, {
          ...options,
          params: { external_id: externalId },
          query: linkToId === undefined ? undefined : { link_to_id: linkToId },
          body,
        }),
      /** PATCH /catalog/products/{external_id} — price, available, active, source_updated_at. */
      patch: (externalId: string, body: BodyOf<typeof patchProduct>, options: CallOptions = {}): Promise<DataOf<typeof patchProduct>> =>
        dataOf(client, patchProduct, { ...options, params: { external_id: externalId }, body }),
      /** DELETE /catalog/products/{external_id} — deactivates. */
      delete: (externalId: string, options: CallOptions = {}): Promise<DataOf<typeof deleteProduct>> =>
        dataOf(client, deleteProduct, { ...options, params: { external_id: externalId } }),
    },
    options: {
      /** PATCH /catalog/options/{external_id} — price and/or available. */
      patch: (externalId: string, body: BodyOf<typeof patchOption>, options: CallOptions = {}): Promise<DataOf<typeof patchOption>> =>
        dataOf(client, patchOption, { ...options, params: { external_id: externalId }, body }),
    },
    /**
     * POST /catalog/batch — up to 500 operations (or one part of a full snapshot). Pass the same
     * `idempotencyKey` when repeating a part after a crash; one is generated otherwise.
     */
    batch: (body: BodyOf<typeof postBatch>, options: CallOptions = {}): Promise<DataOf<typeof postBatch>> =>
      dataOf(client, postBatch, { ...options, body }),
  };
}

export function ordersGroup(client: Caller) {
  return {
    /** GET /orders — oldest first, page by page; `status: ['pending', 'accepted']` is sent as `pending,accepted`. */
    list: (query: QueryOf<typeof listOrders> = {}, options: CallOptions = {}): Paginator<ItemOf<typeof listOrders>> =>
      client.paginate(listOrders, query, options),
    /** GET /orders/{order_id} */
    get: (orderId: string, options: CallOptions = {}): Promise<DataOf<typeof getOrder>> =>
      dataOf(client, getOrder, { ...options, params: { order_id: orderId } }),
    /** GET /orders/by-external-id/{external_id} — the order acknowledged with that code. */
    getByExternalId: (externalId: string, options: CallOptions = {}): Promise<DataOf<typeof getOrderByExternalId>> =>
      dataOf(client, getOrderByExternalId, { ...options, params: { external_id: externalId } }),
    /** POST /orders/{order_id}/ack — `{ external_id, external_number? }`; Idempotency-Key generated if absent. */
    ack: (orderId: string, body: BodyOf<typeof ackOrder>, options: CallOptions = {}): Promise<DataOf<typeof ackOrder>> =>
      dataOf(client, ackOrder, { ...options, params: { order_id: orderId }, body }),
    /** POST /orders/{order_id}/import-failure — `{ code, message, retryable }`. */
    importFailure: (orderId: string, body: BodyOf<typeof reportImportFailure>, options: CallOptions = {}): Promise<DataOf<typeof reportImportFailure>> =>
      dataOf(client, reportImportFailure, { ...options, params: { order_id: orderId }, body }),
    /** POST /orders/{order_id}/status — `{ status, reason?, estimated_minutes?, occurred_at? }`. */
    setStatus: (orderId: string, body: BodyOf<typeof changeOrderStatus>, options: CallOptions = {}): Promise<DataOf<typeof changeOrderStatus>> =>
      dataOf(client, changeOrderStatus, { ...options, params: { order_id: orderId }, body }),
  };
}

/** One page of the event feed: `data`, `next_cursor`, `has_more`, `cursor_expired`. */
export type FeedPage = ResponseOf<typeof listEvents>;

export function eventsGroup(client: Caller) {
  const list = async (query: QueryOf<typeof listEvents> = {}, options: CallOptions = {}): Promise<FeedPage> =>
    (await client.request(listEvents, { ...options, query })).body;
  return {
    /** GET /events — one feed page; pass `after: page.next_cursor` next time, again at once while `has_more`. */
    list,
    /**
     * Feed pages from `query.after` while `has_more` is true (the last page yielded has `has_more: false`).
     * Save each page's `next_cursor` after processing it to continue from there later.
     */
    async *pages(query: QueryOf<typeof listEvents> = {}, options: CallOptions = {}): AsyncGenerator<FeedPage, void, undefined> {
      let after = (query as { after?: string }).after;
      for (;;) {
        const page = await list({ ...query, after } as QueryOf<typeof listEvents>, options);
        yield page;
        if (!page.has_more || page.next_cursor === null || page.next_cursor === after) return;
        after = page.next_cursor;
      }
    },
  };
}

export function webhookGroup(client: Caller) {
  return {
    /** GET /webhook — 404 not_found when none is configured. */
    get: (options: CallOptions = {}): Promise<DataOf<typeof getWebhook>> => dataOf(client, getWebhook, options),
    /** PUT /webhook — `{ url, events, active? }`; on creation (201) the answer carries `signing_secret`, shown once. */
    put: (body: BodyOf<typeof putWebhook>, options: CallOptions = {}): Promise<DataOf<typeof putWebhook>> =>
      dataOf(client, putWebhook, { ...options, body }),
    /** POST /webhook/rotate-secret — the new `signing_secret` (shown once) and `previous_valid_hours`. */
    rotateSecret: (options: CallOptions = {}): Promise<DataOf<typeof rotateWebhookSecret>> => dataOf(client, rotateWebhookSecret, options),
    /** POST /webhook/test — queues a `webhook.test` event (202 `{ queued }`). */
    test: (options: CallOptions = {}): Promise<DataOf<typeof testWebhook>> => dataOf(client, testWebhook, options),
    /** GET /webhook/deliveries — recent delivery records (one list, no cursor). */
    deliveries: (query: QueryOf<typeof listWebhookDeliveries> = {}, options: CallOptions = {}): Promise<DataOf<typeof listWebhookDeliveries>> =>
      dataOf(client, listWebhookDeliveries, { ...options, query }),
    /** POST /webhook/deliveries/{delivery_id}/retry — one immediate attempt; the record after it. */
    retry: (deliveryId: string, options: CallOptions = {}): Promise<DataOf<typeof retryWebhookDelivery>> =>
      dataOf(client, retryWebhookDelivery, { ...options, params: { delivery_id: deliveryId } }),
  };
}

/** The body of an entrega action, by action (`pickup` → `{ settlement_confirmed }`, …). */
export type EntregaActionBody<A extends EntregaAction> = z.input<(typeof entregaActionBodies)[A]>;

export function entregasGroup(client: Caller) {
  return {
    /** POST /entregas — 201 (200 when `request_key` already existed). */
    create: (body: BodyOf<typeof createEntrega>, options: CallOptions = {}): Promise<DataOf<typeof createEntrega>> =>
      dataOf(client, createEntrega, { ...options, body }),
    /** GET /entregas/{id} */
    get: (id: string, options: CallOptions = {}): Promise<DataOf<typeof getEntrega>> =>
      dataOf(client, getEntrega, { ...options, params: { id } }),
    /** POST /entregas/{id}/{action} — `pickup`, `raise_fee`, `cancel`, `returned`. */
    action: <A extends EntregaAction>(id: string, action: A, body: EntregaActionBody<A>, options: CallOptions = {}): Promise<DataOf<typeof entregaActionEndpoint>> =>
      dataOf(client, entregaActionEndpoint, { ...options, params: { id, action }, body: body as BodyOf<typeof entregaActionEndpoint> }),
  };
}
