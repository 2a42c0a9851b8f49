import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, eventsOf, newStore } from '../../helpers/stores.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('GET /store', () => {
  it('answers the seeded store with the spec fields', async () => {
    const res = await emu.api('GET', '/store');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: emu.test.store_id,
      slug: 'demo-test',
      name: 'Tienda Demo (prueba)',
      timezone: 'America/Asuncion',
      currency: 'PYG',
      accepting_orders: false,
      fulfillment_types: ['delivery', 'pickup'],
      payment_methods: expect.arrayContaining([
        { code: 'cash', name: expect.any(String) },
        { code: 'bank_transfer', name: expect.any(String) },
        { code: 'card_on_delivery', name: expect.any(String) },
        { code: 'qr', name: expect.any(String) },
        { code: 'other', name: expect.any(String) },
      ]),
    });
    expect(res.body.data.payment_methods.filter((m: { code: string }) => m.code.startsWith('custom_'))).toHaveLength(1);
  });

  it('needs store:read', async () => {
    const made = await newStore(emu, { scopes: ['store:write'] });
    const res = await asStore(emu, made)('GET', '/store');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});

describe('PATCH /store', () => {
  it('answers 422 with details when the store has no active product', async () => {
    const made = await newStore(emu);
    const res = await asStore(emu, made)('PATCH', '/store', { body: { accepting_orders: true } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([{ field: 'accepting_orders', code: expect.any(String), message: expect.any(String) }]);
  });

  it('needs store:write, not store:read', async () => {
    const made = await newStore(emu, { scopes: ['store:read'] });
    const res = await asStore(emu, made)('PATCH', '/store', { body: { accepting_orders: false } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('pauses and opens a store with an active product, emitting store.updated', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    const product = await emu.control('POST', `/stores/${made.store.id}/products`, { name: 'Empanada', price: '8000' });
    expect(product.status).toBe(201);
    expect((await call('GET', '/store')).body.data.accepting_orders).toBe(true);

    const paused = await call('PATCH', '/store', { body: { accepting_orders: false } });
    expect(paused.status).toBe(200);
    expect(paused.body.data.accepting_orders).toBe(false);
    const opened = await call('PATCH', '/store', { body: { accepting_orders: true } });
    expect(opened.body.data.accepting_orders).toBe(true);

    // The last two: the panel product itself may already have announced the opening.
    const updates = (await eventsOf(emu, 'test', made.integration.id)).filter((e) => e.type === 'store.updated').slice(-2);
    expect(updates.map((e) => (e.data.store as { accepting_orders: boolean }).accepting_orders)).toEqual([false, true]);
    expect(updates.every((e) => (e.data.changed as string[]).includes('accepting_orders'))).toBe(true);
  });
});
