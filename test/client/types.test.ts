import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AckStatus, Category, DeliveryRecord, MeContext, Order, OrderStatus, Product, Store, UpsertResult } from '../../src/contract/index.js';
import { getMe, putProduct } from '../../src/contract/index.js';
import { ackOrder } from '../../src/contract/orders-endpoints.js';
import { MerchantClient, type EmulatorClock, type EmulatorState, type BodyOf, type DataOf, type FeedPage, type Page, type ParamsOf, type QueryOf } from '../../src/client/index.js';

// Compile-time checks (tsc): the client's types are read from the endpoint rows, not written again.
describe('types inferred from the endpoint rows', () => {
  it('reads request and response types from the rows', () => {
    expectTypeOf<DataOf<typeof getMe>>().toEqualTypeOf<MeContext>();
    expectTypeOf<ParamsOf<typeof ackOrder>>().toEqualTypeOf<{ order_id: string }>();
    expectTypeOf<BodyOf<typeof ackOrder>>().toHaveProperty('external_id');
    // A row without params (or a plain `Endpoint` of ALL_ENDPOINTS) takes loose ones.
    expectTypeOf<ParamsOf<typeof getMe>>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<QueryOf<typeof getMe>>().toEqualTypeOf<Record<string, unknown> | undefined>();
    expect(ackOrder.id).toBe('ackOrder');
  });

  it('types control answers from the emulator\'s own views', () => {
    expectTypeOf<EmulatorClock['offset_seconds']>().toEqualTypeOf<number>();
    expectTypeOf<EmulatorState['environments'][number]['stores'][number]['id']>().toEqualTypeOf<string>();
    expectTypeOf<EmulatorState>().not.toBeAny();
  });

  it('types every method of the client', () => {
    const client = new MerchantClient({ baseUrl: 'http://127.0.0.1:1/sandbox/v1', credential: 'svk_test_x.svs_test_y' });
    expectTypeOf(client.me).returns.resolves.toEqualTypeOf<MeContext>();
    expectTypeOf(client.store.get).returns.resolves.toEqualTypeOf<Store>();
    expectTypeOf(client.orders.get).returns.resolves.toEqualTypeOf<Order>();
    expectTypeOf(client.orders.list).returns.toHaveProperty('first');
    expectTypeOf(client.orders.list().first).returns.resolves.toEqualTypeOf<Page<Order>>();
    expectTypeOf(client.catalog.products.list().all).returns.resolves.toEqualTypeOf<Product[]>();
    expectTypeOf(client.catalog.categories.list().all).returns.resolves.toEqualTypeOf<Category[]>();
    expectTypeOf(client.catalog.products.patch).returns.resolves.toEqualTypeOf<UpsertResult>();
    expectTypeOf(client.events.list).returns.resolves.toEqualTypeOf<FeedPage>();
    expectTypeOf(client.webhook.deliveries).returns.resolves.toEqualTypeOf<DeliveryRecord[]>();
    expectTypeOf<Parameters<typeof client.orders.list>[0]>().exclude<undefined>().toHaveProperty('status');

    // Query arrays and the text form are both accepted; wrong values are not. Never called: types only.
    const typedCalls = () => {
    const statuses: OrderStatus[] = ['pending', 'accepted'];
    const ackStatus: AckStatus = 'pending';
    void client.orders.list({ status: statuses, ack_status: ackStatus, limit: 50 });
    void client.orders.list({ status: 'pending,accepted' });
    // @ts-expect-error not an order status
    void client.orders.list({ status: ['shipped'] });
    // @ts-expect-error ack needs external_id
    void client.orders.ack('ord_1', {});
    // @ts-expect-error PATCH /store takes accepting_orders only
    void client.store.patch({ name: 'x' });
    // @ts-expect-error pickup needs settlement_confirmed: true
    void client.entregas.action('ent_1', 'pickup', { reason: 'abc' });
    void client.entregas.action('ent_1', 'cancel', { reason: 'no courier' });
    void client.catalog.products.put('SKU-1', { name: 'X', price: '1', category_external_id: 'C' } as BodyOf<typeof putProduct>, { linkToId: 'prd_1' });
    };
    expect(typeof typedCalls).toBe('function');
    void client.close();
  });
});
