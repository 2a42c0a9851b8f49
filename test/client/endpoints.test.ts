import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ENDPOINTS } from '../../src/contract/index.js';
import { ApiError } from '../../src/client/index.js';
import { startClientRig, type ClientRig } from '../helpers/client.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Every method of MerchantClient against a real emulator over HTTP: the request reaches the right
// route with the right body, and the answer's `data` comes back typed.
let rig: ClientRig;
let receiver: Receiver;
/** Endpoint rows that answered 2xx to a convenience method of the client in this file. */
const answered = new Set<string>();
beforeAll(async () => {
  rig = await startClientRig({ onResponse: (info) => void (info.status < 300 && answered.add(info.endpointId)) });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await rig?.close();
});

// Option and group codes are unique per integration: each product gets its own.
const burger = (suffix: string) => ({
  name: 'Hamburguesa clásica', category_external_id: 'CAT-BURGER', price: '35000',
  option_groups: [{
    external_id: `GR-EXTRAS-${suffix}`, name: 'Extras', min_select: 0, max_select: 2,
    options: [{ external_id: `OP-QUESO-${suffix}`, name: 'Queso extra', price: '5000' }],
  }],
});

describe('store and context', () => {
  it('me() answers GET /me with the seeded store', async () => {
    const me = await rig.client.me();
    expect(me.store.id).toBe(rig.emu.test.store_id);
    expect(me.integration.environment).toBe('test');
  });

  it('store.get() and store.patch() pause and reopen order intake', async () => {
    await rig.client.catalog.categories.put('CAT-BURGER', { name: 'Hamburguesas' });
    await rig.client.catalog.products.put('HB-1', burger('1'));
    expect((await rig.client.store.get()).id).toBe(rig.emu.test.store_id);
    expect((await rig.client.store.patch({ accepting_orders: false })).accepting_orders).toBe(false);
    expect((await rig.client.store.patch({ accepting_orders: true })).accepting_orders).toBe(true);
  });
});

describe('catalog', () => {
  it('categories.put() creates then updates, list() iterates, delete() deactivates', async () => {
    expect((await rig.client.catalog.categories.put('CAT-EMPTY', { name: 'Vacía' })).result).toBe('created');
    expect((await rig.client.catalog.categories.put('CAT-EMPTY', { name: 'Vacía 2' })).result).toBe('updated');
    const codes = (await rig.client.catalog.categories.list().all()).map((c) => c.external_id);
    expect(codes).toEqual(expect.arrayContaining(['CAT-BURGER', 'CAT-EMPTY']));
    const deleted = await rig.client.catalog.categories.delete('CAT-EMPTY');
    expect(deleted.external_id).toBe('CAT-EMPTY');
    const after = await rig.client.catalog.categories.list().all();
    expect(after.find((c) => c.external_id === 'CAT-EMPTY')?.active).toBe(false);
  });

  it('products.put(), patch(), options.patch(), list() and delete() round-trip', async () => {
    expect((await rig.client.catalog.products.put('HB-2', { ...burger('2'), name: 'Doble' })).result).toBe('created');
    expect((await rig.client.catalog.products.patch('HB-2', { price: '40000' })).result).toBe('updated');
    expect((await rig.client.catalog.options.patch('OP-QUESO-2', { available: false })).external_id).toBe('OP-QUESO-2');
    const listed = await rig.client.catalog.products.list({ category_external_id: 'CAT-BURGER', active: true }).all();
    const hb2 = listed.find((p) => p.external_id === 'HB-2')!;
    expect(hb2.price).toBe('40000');
    expect(hb2.option_groups[0]!.options[0]!.available).toBe(false);
    expect((await rig.client.catalog.products.delete('HB-2')).external_id).toBe('HB-2');
    const inactive = await rig.client.catalog.products.list({ active: false }).all();
    expect(inactive.map((p) => p.external_id)).toContain('HB-2');
  });

  it('products.put() with linkToId links a panel product to the code', async () => {
    const panel = await rig.control.createPanelProduct(rig.emu.test.store_id, { name: 'Empanada', price: '7000', category_external_id: 'CAT-BURGER' });
    const linked = await rig.client.catalog.products.put('EMP-1', { name: 'Empanada', category_external_id: 'CAT-BURGER', price: '7000' }, { linkToId: panel.id });
    expect(linked.id).toBe(panel.id);
  });

  it('batch() applies operations with a generated Idempotency-Key', async () => {
    const result = await rig.client.catalog.batch({
      operations: [
        { op: 'upsert_category', external_id: 'CAT-DRINK', data: { name: 'Bebidas' } },
        { op: 'upsert_product', external_id: 'BEB-1', data: { name: 'Agua', category_external_id: 'CAT-DRINK', price: '5000' } },
      ],
    });
    expect(result.summary).toEqual({ total: 2, succeeded: 2, failed: 0 });
    const sent = rig.sent.filter((s) => s.path.endsWith('/catalog/batch'));
    expect(sent.at(-1)!.headers['idempotency-key']).toMatch(/^[A-Za-z0-9._:-]{8,100}$/);
  });
});

describe('orders and the feed', () => {
  it('list(), get(), ack(), getByExternalId(), setStatus() and importFailure() round-trip', async () => {
    const a = await rig.control.simulateOrder({ store_id: rig.emu.test.store_id, scenario: 'delivery' });
    const b = await rig.control.simulateOrder({ store_id: rig.emu.test.store_id, scenario: 'pickup_invoice' });
    const pending = await rig.client.orders.list({ status: ['pending'], ack_status: 'pending' }).all();
    expect(pending.map((o) => o.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await rig.client.orders.get(a.id)).id).toBe(a.id);
    const acked = await rig.client.orders.ack(a.id, { external_id: 'ERP-1', external_number: 'F-1' });
    expect(acked.integration.ack_status).toBe('acknowledged');
    expect((await rig.client.orders.getByExternalId('ERP-1')).id).toBe(a.id);
    const accepted = await rig.client.orders.setStatus(a.id, { status: 'accepted', estimated_minutes: 20 });
    expect(accepted.status).toBe('accepted');
    const failed = await rig.client.orders.importFailure(b.id, { code: 'unmapped_product', message: 'Producto sin código', retryable: false });
    expect(failed.integration.ack_status).toBe('failed');
  });

  it('events.list() returns one feed page and events.pages() follows has_more', async () => {
    const page = await rig.client.events.list({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.has_more).toBe(true);
    expect(page.cursor_expired).toBe(false);
    const types: string[] = [];
    let last = page;
    for await (const p of rig.client.events.pages({ limit: 2, types: ['order.created'] })) {
      types.push(...p.data.map((e) => e.type));
      last = p;
    }
    expect(types.length).toBeGreaterThanOrEqual(2);
    expect(new Set(types)).toEqual(new Set(['order.created']));
    expect(last.has_more).toBe(false);
  });
});

describe('webhook', () => {
  it('put(), get(), test(), deliveries(), retry() and rotateSecret() round-trip', async () => {
    const created = await rig.client.webhook.put({ url: receiver.url, events: ['*'] });
    expect(created.signing_secret).toMatch(/^whsec_/);
    expect((await rig.client.webhook.get()).url).toBe(receiver.url);
    expect(await rig.client.webhook.test()).toEqual({ queued: true });
    await rig.control.drainWebhooks();
    const deliveries = await rig.client.webhook.deliveries({ status: 'succeeded' });
    expect(deliveries.length).toBeGreaterThan(0);
    const retried = await rig.client.webhook.retry(deliveries[0]!.id);
    expect(retried.id).toBe(deliveries[0]!.id);
    const rotated = await rig.client.webhook.rotateSecret();
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.previous_valid_hours).toBe(24);
  });
});

describe('entregas', () => {
  it('create(), get() and action() round-trip', async () => {
    const entrega = await rig.client.entregas.create({
      request_key: 'ENV-1', customer: { name: 'Ana Benítez', phone: '+595981000111' },
      address: { line: 'Av. Mcal. López 1234, Asunción', reference: 'Portón verde' }, payment_method: 'cash',
      customer_total: 85000, customer_fee: 10000, courier_fee: 12000, notes: 'Llamar al llegar',
    });
    expect(entrega.id).toMatch(/^ent_/);
    expect((await rig.client.entregas.get(entrega.id)).request_key).toBe('ENV-1');
    const cancelled = await rig.client.entregas.action(entrega.id, 'cancel', { reason: 'Cliente desistió' });
    expect(cancelled.status).toBe('cancelled');
  });
});

describe('coverage', () => {
  // Runs after the method tests above and before request() is used directly below.
  it('has answered 2xx to a method for every endpoint row of the spec', () => {
    expect([...answered].sort()).toEqual(ALL_ENDPOINTS.map((e) => e.id).sort());
  });
});

describe('request()', () => {
  it('calls any row of ALL_ENDPOINTS and returns status, request id and replay', async () => {
    const me = ALL_ENDPOINTS.find((e) => e.id === 'getMe')!;
    const response = await rig.client.request(me);
    expect(response.status).toBe(200);
    expect(response.requestId).toMatch(/^req_/);
    expect(response.replayed).toBe(false);
    expect(response.attempts).toBe(1);
  });

  it('reports a replay when the same Idempotency-Key is sent twice', async () => {
    const order = await rig.control.simulateOrder({ store_id: rig.emu.test.store_id, scenario: 'delivery' });
    const ack = ALL_ENDPOINTS.find((e) => e.id === 'ackOrder')!;
    const options = { params: { order_id: order.id }, body: { external_id: 'ERP-REPLAY' }, idempotencyKey: 'replay-key-0001' };
    const first = await rig.client.request(ack, options);
    const second = await rig.client.request(ack, options);
    expect(first.replayed).toBe(false);
    expect(second.replayed).toBe(true);
    expect(second.idempotencyKey).toBe('replay-key-0001');
    expect(second.requestId).not.toBe(first.requestId);
  });

  it('passes per-call metadata of a convenience method to onResponse', async () => {
    const seen: number[] = [];
    await rig.client.store.get({ onResponse: (info) => seen.push(info.status) });
    const error = await rig.client.webhook.retry('dlv_01JD0000000000000000000000', { onResponse: (info) => seen.push(info.status) }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(seen).toEqual([200, 404]);
  });

  it('knows every endpoint row of the spec', () => {
    // One row per method; the count guards against a row added to the contract without a method.
    expect(ALL_ENDPOINTS.map((e) => e.id).sort()).toEqual([
      'ackOrder', 'changeOrderStatus', 'createEntrega', 'deleteCategory', 'deleteProduct', 'entregaAction', 'getEntrega', 'getMe',
      'getOrder', 'getOrderByExternalId', 'getStore', 'getWebhook', 'listCategories', 'listEvents', 'listOrders', 'listProducts',
      'listWebhookDeliveries', 'patchOption', 'patchProduct', 'patchStore', 'postBatch', 'putCategory', 'putProduct',
      'putWebhook', 'reportImportFailure', 'retryWebhookDelivery', 'rotateWebhookSecret', 'testWebhook',
    ]);
  });
});
