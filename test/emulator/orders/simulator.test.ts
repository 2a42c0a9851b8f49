import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { seedMenu, simulate } from '../../helpers/orders.js';
import { parseAmount } from '../../../src/contract/amounts.js';
import { order as orderSchema } from '../../../src/contract/orders.js';
import { isValidRuc } from '../../../emulator/orders/ruc.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
});
afterAll(() => emu.close());

const fieldsOf = (res: { body: any }) => res.body.error.details.map((d: any) => `${d.field}:${d.code}`);

/** spec: Order rule 2, recomputed from the order's own copies. */
function checkTotals(order: any): void {
  let subtotal = 0;
  for (const item of order.items) {
    const perUnit = item.options.reduce((s: number, o: any) => s + parseAmount(o.unit_price) * o.quantity, parseAmount(item.unit_price));
    expect(parseAmount(item.line_total)).toBe(perUnit * item.quantity);
    subtotal += perUnit * item.quantity;
  }
  const t = order.totals;
  expect(parseAmount(t.subtotal)).toBe(subtotal);
  expect(parseAmount(t.total)).toBe(subtotal + parseAmount(t.delivery_fee) - parseAmount(t.discount));
}

describe('POST /_emulator/orders', () => {
  it('makes a complete delivery order in Asunción with barrio, reference and coordinates', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    expect(orderSchema.safeParse(order).success).toBe(true);
    expect(order).toMatchObject({ status: 'pending', fulfillment_type: 'delivery', store_id: emu.test.store_id, integration: { ack_status: 'pending' } });
    expect(order.delivery_address).toMatchObject({ city: 'Asunción', neighborhood: expect.any(String), reference: expect.any(String) });
    expect(order.delivery_address.latitude).toBeGreaterThan(-25.4);
    expect(order.delivery_address.latitude).toBeLessThan(-25.2);
    expect(order.delivery_address.longitude).toBeGreaterThan(-57.7);
    expect(parseAmount(order.totals.delivery_fee)).toBeGreaterThan(0);
    expect(order.status_history).toEqual([{ status: 'pending', at: order.created_at, by: 'customer', reason: null }]);
    checkTotals(order);
  });

  it('makes a pickup order with invoice data whose RUC carries a valid check digit', async () => {
    for (let i = 0; i < 12; i++) {
      const order = await simulate(emu, { scenario: 'pickup_invoice' });
      expect(order.fulfillment_type).toBe('pickup');
      expect(order.delivery_address).toBeNull();
      expect(order.totals.delivery_fee).toBe('0');
      const billing = order.customer.billing;
      expect(['ruc', 'ci']).toContain(billing.document_type);
      if (billing.document_type === 'ruc') expect(isValidRuc(billing.document)).toBe(true);
      else expect(billing.document).toMatch(/^[0-9]{6,7}$/);
      checkTotals(order);
    }
  });

  it('makes an unmapped_product order with a panel product whose external_id is null, creating one when the store has none', async () => {
    const order = await simulate(emu, { scenario: 'unmapped_product' });
    const unmapped = order.items.filter((i: any) => i.product.external_id === null);
    expect(unmapped.length).toBeGreaterThan(0);
    const listed = await emu.api('GET', '/catalog/products?limit=200');
    expect(listed.body.data.some((p: any) => p.id === unmapped[0].product.id && p.external_id === null)).toBe(true);
    checkTotals(order);
  });

  it('honours explicit items with options and option quantities, priced with exact decimals', async () => {
    const order = await simulate(emu, {
      items: [
        {
          product_external_id: 'HB-CLASICA', quantity: 2, notes: 'Sin cebolla',
          options: [{ option_external_id: 'OP-JUGOSO' }, { option_external_id: 'OP-BACON', quantity: 2 }],
        },
        { product_external_id: 'BEB-COCA', quantity: 3 },
      ],
      notes: 'Tocar timbre',
      payment_method_code: 'cash',
    });
    expect(order.items[0]).toMatchObject({
      line: 1, name: 'Hamburguesa clásica', unit_price: '35000', quantity: 2, notes: 'Sin cebolla', product: { external_id: 'HB-CLASICA', sku: 'SKU-HB1' },
      options: [
        { group_name: 'Punto de la carne', group_external_id: 'GR-PUNTO', name: 'Jugoso', unit_price: '0', quantity: 1, option: { external_id: 'OP-JUGOSO' } },
        { group_name: 'Extras', group_external_id: 'GR-EXTRAS', name: 'Bacon', unit_price: '7000.50', quantity: 2 },
      ],
      line_total: '98002', // (35000 + 7000.50 × 2) × 2
    });
    expect(order.items[1]).toMatchObject({ line: 2, line_total: '36000' });
    expect(order.totals.subtotal).toBe('134002');
    expect(order.notes).toBe('Tocar timbre');
    expect(order.payment).toMatchObject({ method_code: 'cash', method_name: 'Efectivo', status: 'unpaid' });
    expect(parseAmount(order.payment.change_for)).toBeGreaterThanOrEqual(parseAmount(order.totals.total));
    checkTotals(order);
  });

  it('takes any payment method of the store, without change_for unless cash', async () => {
    const order = await simulate(emu, { payment_method_code: 'custom_vale' });
    expect(order.payment).toEqual({ method_code: 'custom_vale', method_name: 'Vale de la casa', change_for: null, status: 'unpaid' });
  });

  it('numbers orders sequentially per store', async () => {
    const a = await simulate(emu);
    const b = await simulate(emu);
    expect(b.number).toBe(a.number + 1);
  });

  it('keeps copies: a later price change does not touch an existing order', async () => {
    const order = await simulate(emu, { items: [{ product_external_id: 'BEB-COCA' }] });
    await emu.api('PATCH', '/catalog/products/BEB-COCA', { body: { price: '15000' } });
    const again = await emu.api('GET', `/orders/${order.id}`);
    expect(again.body.data.items[0].unit_price).toBe('12000');
    const fresh = await simulate(emu, { items: [{ product_external_id: 'BEB-COCA' }] });
    expect(fresh.items[0].unit_price).toBe('15000');
  });

  it('answers 422 for unknown, sold-out and inactive products with one detail each', async () => {
    const res = await emu.control('POST', '/orders', {
      store_id: emu.test.store_id,
      items: [{ product_external_id: 'NO-EXISTE' }, { product_external_id: 'BEB-AGOTADA' }, { product_external_id: 'BEB-VIEJA' }],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(fieldsOf(res)).toEqual([
      'items.0.product_external_id:unknown_product',
      'items.1.product_external_id:product_unavailable',
      'items.2.product_external_id:product_inactive',
    ]);
  });

  it('answers 422 when a required option group is left empty or an option is foreign', async () => {
    const res = await emu.control('POST', '/orders', {
      store_id: emu.test.store_id,
      items: [{ product_external_id: 'HB-CLASICA' }, { product_external_id: 'BEB-COCA', options: [{ option_external_id: 'OP-QUESO' }] }],
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['items.0.options:min_select', 'items.1.options.0.option_external_id:unknown_option']);
  });

  it('answers 422 for an unknown payment method and a scheduled_for in the past, and takes a future one', async () => {
    const bad = await emu.control('POST', '/orders', { store_id: emu.test.store_id, payment_method_code: 'bitcoin' });
    expect(fieldsOf(bad)).toEqual(['payment_method_code:unknown_payment_method']);
    const past = await emu.control('POST', '/orders', { store_id: emu.test.store_id, scheduled_for: '2020-01-01T10:00:00-03:00' });
    expect(fieldsOf(past)).toEqual(['scheduled_for:not_future']);
    const later = new Date(emu.running.emulator.clock.now() + 3600_000).toISOString();
    const order = await simulate(emu, { scheduled_for: later });
    expect(Date.parse(order.scheduled_for)).toBe(Date.parse(later));
  });

  it('answers 422 for an unknown field and 404 for an unknown store', async () => {
    const res = await emu.control('POST', '/orders', { store_id: emu.test.store_id, color: 'rojo' });
    expect(fieldsOf(res)).toEqual(['color:unknown_field']);
    const missing = await emu.control('POST', '/orders', { store_id: 'str_01JD0000000000000000000000' });
    expect(missing.status).toBe(404);
  });

  it('finds each store in its own environment: a live store right after a test store\'s order, and back', async () => {
    const first = await simulate(emu);
    // The live store is found: the seeded one takes no orders (409 store_closed, not 404 not_found).
    const live = await emu.control('POST', '/orders', { store_id: emu.live.store_id });
    expect([live.status, live.body.error.code]).toEqual([409, 'store_closed']);
    const back = await simulate(emu);
    expect([first.store_id, back.store_id]).toEqual([emu.test.store_id, emu.test.store_id]);
    // The simulation tried in the other environment first wrote nothing: the store's numbers run on.
    expect(back.number).toBe(first.number + 1);
    expect((await emu.control('POST', '/orders', { store_id: emu.live.store_id })).status).toBe(409);
  });

  it('answers 409 store_closed while the store does not accept orders', async () => {
    await emu.api('PATCH', '/store', { body: { accepting_orders: false } });
    const res = await emu.control('POST', '/orders', { store_id: emu.test.store_id });
    await emu.api('PATCH', '/store', { body: { accepting_orders: true } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('store_closed');
  });

  it('emits order.created with the complete order in the feed', async () => {
    const order = await simulate(emu);
    const feed = await emu.api('GET', '/events?types=order.created&limit=200');
    const event = feed.body.data.find((e: any) => e.data.order.id === order.id);
    expect(event).toMatchObject({ type: 'order.created', api_version: '1.0', store_id: emu.test.store_id, integration_id: emu.test.integration_id });
    expect(event.data.order).toEqual(order);
  });
});

describe('POST /_emulator/orders with --seed', () => {
  it('reproduces the same choices for the same seed', async () => {
    const run = async () => {
      const e = await startTestEmulator({ limits: false, seed: 42 });
      try {
        await seedMenu(e);
        const o = await simulate(e, { scenario: 'delivery' });
        return { items: o.items.map((i: any) => [i.name, i.quantity, i.options.map((x: any) => x.name)]), customer: o.customer, address: o.delivery_address, totals: o.totals, payment: o.payment };
      } finally {
        await e.close();
      }
    };
    expect(await run()).toEqual(await run());
  });
});
