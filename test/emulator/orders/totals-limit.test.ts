import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// spec: Order rule 2 — amounts are exact integers of hundredths. Issue 24 (low): a simulated order of
// 91 units of a product priced 1,000,000,000,000 (the largest amount the API takes) came to more
// than 2^53 hundredths, where a number is no longer exact: both backends answered 500. Such an
// order is refused with 422 validation_failed, naming the field that took it past the bound.

let emu: TestEmulator;
const MAX_PRICE = '1000000000000';

beforeAll(async () => {
  emu = await startTestEmulator();
  const put = async (path: string, body: unknown) => expect((await emu.api('PUT', path, { body })).status).toBeLessThan(300);
  await put('/catalog/categories/CAT-LUJO', { name: 'Lujo' });
  await put('/catalog/products/P-CARO', { name: 'Producto carísimo', category_external_id: 'CAT-LUJO', price: MAX_PRICE });
  await put('/catalog/products/P-OPCIONES', {
    name: 'Con opciones caras', category_external_id: 'CAT-LUJO', price: '1',
    option_groups: [{ external_id: 'G-ORO', name: 'Oro', min_select: 0, max_select: 50, options: [{ external_id: 'O-ORO', name: 'Oro', price: MAX_PRICE }] }],
  });
});
afterAll(() => emu?.close());

const simulate = (items: unknown[]) => emu.control('POST', '/orders', { store_id: emu.test.store_id, scenario: 'pickup_invoice', items });

describe('a simulated order whose amounts pass 2^53 hundredths', () => {
  it('answers 422 validation_failed naming the line\'s quantity when one line passes it (price 1e12 × 91)', async () => {
    const res = await simulate([{ product_external_id: 'P-CARO', quantity: 91 }]);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([{ field: 'items.0.quantity', code: 'too_large', message: expect.any(String) }]);
  });

  it('answers 422 naming the line when its options take it past (50 options of 1e12, 2 units)', async () => {
    const res = await simulate([{ product_external_id: 'P-OPCIONES', quantity: 2, options: [{ option_external_id: 'O-ORO', quantity: 50 }] }]);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ field: 'items.0.quantity', code: 'too_large', message: expect.any(String) }]);
  });

  it('answers 422 naming `items` when each line is exact but their sum is not', async () => {
    const res = await simulate([{ product_external_id: 'P-CARO', quantity: 60 }, { product_external_id: 'P-CARO', quantity: 60 }]);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ field: 'items', code: 'too_large', message: expect.any(String) }]);
  });

  it('makes the order when the total stays exact (price 1e12 × 90)', async () => {
    const res = await simulate([{ product_external_id: 'P-CARO', quantity: 90 }]);
    expect(res.status).toBe(201);
    const totals = res.body.data.totals;
    expect(totals.subtotal).toBe('90000000000000');
    // The simulator takes 10 % off one order in five: the total is exact either way.
    expect(BigInt(totals.total)).toBe(BigInt(totals.subtotal) + BigInt(totals.delivery_fee) - BigInt(totals.discount));
    expect((await emu.api('GET', `/orders/${res.body.data.id}`)).body.data.totals).toEqual(totals);
  });
});
