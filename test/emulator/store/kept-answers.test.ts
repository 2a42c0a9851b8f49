import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { orderAction, seedMenu, simulate } from '../../helpers/orders.js';
import { makeStore } from '../../helpers/catalog.js';
import { decodeBundle } from '../../../emulator/bundle/envelope.js';
import { restoreBundle } from '../../../emulator/bundle/restore.js';

// GET /orders/{id} and GET /catalog/products answer from JSON text kept until the database changes.
// The clock is manual and never moves here: every change happens in the same millisecond as the
// read before it, so nothing may depend on updated_at to notice a change.
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
});
afterAll(() => emu.close());

describe('kept read answers', () => {
  it('answers GET /orders/{order_id} with a status change made in the same millisecond', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.status).toBe('pending');
    expect((await orderAction(emu, order.id, 'status', { status: 'accepted' })).status).toBe(200);
    const after = (await emu.api('GET', `/orders/${order.id}`)).body.data;
    expect(after.status).toBe('accepted');
    expect(after.status_history.map((h: any) => h.status)).toEqual(['pending', 'accepted']);
  });

  it('answers GET /orders/{order_id} with a panel change made through the control API', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.status).toBe('pending');
    expect((await emu.control('POST', `/orders/${order.id}/status`, { status: 'accepted' })).status).toBe(200);
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.status).toBe('accepted');
  });

  it("answers 404 not_found for another store's order that its own store has just read", async () => {
    const order = await simulate(emu);
    const other = await makeStore(emu);
    // The first call of a credential activates its integration (a write): done before the reads.
    expect((await emu.api('GET', '/me', { credential: other.credential })).status).toBe(200);
    expect((await emu.api('GET', `/orders/${order.id}`)).status).toBe(200);
    const res = await emu.api('GET', `/orders/${order.id}`, { credential: other.credential });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it("lists a product's new price in the same millisecond it changed", async () => {
    const price = async () =>
      (await emu.api('GET', '/catalog/products?limit=200')).body.data.find((p: any) => p.external_id === 'BEB-COCA').price;
    expect(await price()).toBe('12000');
    expect((await emu.api('PATCH', '/catalog/products/BEB-COCA', { body: { price: '13000' } })).status).toBe(200);
    expect(await price()).toBe('13000');
  });
});

// The whole state replaced under a kept answer: the tables are emptied or loaded at once, without
// the orders' own writes, so the storage reports a reset on its change feed.
describe('kept read answers after the state is replaced', () => {
  let own: TestEmulator;
  beforeAll(async () => {
    own = await startTestEmulator({ limits: false });
  });
  afterAll(() => own.close());

  /** An order that GET /orders/{order_id} has read twice (so its answer is kept). */
  async function readOrder(): Promise<string> {
    await seedMenu(own);
    const order = await simulate(own);
    for (let i = 0; i < 2; i++) expect((await own.api('GET', `/orders/${order.id}`)).status).toBe(200);
    return order.id;
  }

  it('answers 404 not_found for an order read before a reset', async () => {
    const id = await readOrder();
    expect((await own.control('POST', '/reset', {})).status).toBe(200);
    const res = await own.api('GET', `/orders/${id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers 404 not_found for an order read before a restore of a bundle made without it', async () => {
    const bundle = decodeBundle(Buffer.from(await (await fetch(`${own.url}/_emulator/export`)).arrayBuffer()));
    const id = await readOrder();
    const restored = await restoreBundle(own.running.emulator, bundle);
    const credential = restored.find((r) => r.environment === 'test')!.credential;
    const res = await own.api('GET', `/orders/${id}`, { credential });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
