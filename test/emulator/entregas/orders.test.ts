import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { key, orderAction, seedMenu, simulate } from '../../helpers/orders.js';
import { newStore, asStore } from '../../helpers/stores.js';
import { parseAmount } from '../../../src/contract/amounts.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
});
afterAll(() => emu.close());

let n = 0;
const create = (body: Record<string, unknown>, credential?: string) =>
  emu.api('POST', '/entregas', { body: { request_key: `ORD-${++n}`, ...body }, idempotencyKey: key(), credential });
async function acceptedDelivery(payment_method_code = 'cash') {
  const order = await simulate(emu, { scenario: 'delivery', payment_method_code });
  const res = await orderAction(emu, order.id, 'status', { status: 'accepted' });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('POST /entregas from an order', () => {
  it('creates from an accepted delivery order with its totals in whole guaraníes and the quote, leaving the order untouched', async () => {
    const order = await acceptedDelivery();
    const res = await create({ order_id: order.id });
    expect(res.status).toBe(201);
    const fee = Math.ceil(parseAmount(order.totals.delivery_fee) / 100);
    expect(res.body.data).toMatchObject({
      order_id: order.id,
      status: 'requested',
      customer_total: Math.ceil(parseAmount(order.totals.total) / 100),
      customer_fee: fee,
      courier_fee: Math.max(10000, fee),
      customer: { name: order.customer.name, phone: order.customer.phone },
    });
    expect(Number.isInteger(res.body.data.balance)).toBe(true);
    // DESIGN: courier amounts never change an order's payment or totals.
    const after = await emu.api('GET', `/orders/${order.id}`);
    expect(after.body.data).toEqual(order);
  });

  it('requires transfer_received for an unpaid bank-transfer order', async () => {
    const order = await acceptedDelivery('bank_transfer');
    const missing = await create({ order_id: order.id });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details[0]).toMatchObject({ field: 'transfer_received', code: 'transfer_confirmation_required' });
    const ok = await create({ order_id: order.id, transfer_received: true });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ payment_method: 'bank_transfer', transfer_received: true, balance: -ok.body.data.courier_fee });
  });

  it('answers 422 order_not_accepted for a pending order', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    const res = await create({ order_id: order.id });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toMatchObject({ field: 'order_id', code: 'order_not_accepted' });
  });

  it('answers 422 not_delivery for a pickup order', async () => {
    const order = await simulate(emu, { scenario: 'pickup_invoice' });
    await orderAction(emu, order.id, 'status', { status: 'accepted' });
    const res = await create({ order_id: order.id });
    expect(res.body.error.details[0]).toMatchObject({ field: 'order_id', code: 'not_delivery' });
  });

  it('answers 422 already_requested for a second request_key on the same order, and not_allowed_with_order for manual fields', async () => {
    const order = await acceptedDelivery();
    expect((await create({ order_id: order.id })).status).toBe(201);
    const second = await create({ order_id: order.id });
    expect(second.body.error.details[0]).toMatchObject({ field: 'order_id', code: 'already_requested' });
    const mixed = await create({ order_id: order.id, courier_fee: 1 });
    expect(mixed.body.error.details[0]).toMatchObject({ field: 'courier_fee', code: 'not_allowed_with_order' });
  });

  it('answers 404 for an order of another store', async () => {
    const order = await acceptedDelivery();
    const other = await newStore(emu);
    const res = await asStore(emu, other)('POST', '/entregas', { body: { request_key: 'X-1', order_id: order.id }, idempotencyKey: key() });
    expect(res.status).toBe(404);
  });
});
