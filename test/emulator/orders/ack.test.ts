import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { orderAction, readAllEvents, seedMenu, simulate } from '../../helpers/orders.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
});
afterAll(() => emu.close());

const ack = (orderId: string, body: unknown) => orderAction(emu, orderId, 'ack', body);
const fail = (orderId: string, body: unknown) => orderAction(emu, orderId, 'import-failure', body);
const updates = async (orderId: string) => (await readAllEvents(emu, 'types=order.updated')).filter((e) => e.data.order.id === orderId);
const fieldsOf = (res: { body: any }) => res.body.error.details.map((d: any) => `${d.field}:${d.code}`);
const alerts = async () => {
  const state = (await emu.control('GET', '/state')).body.data;
  const store = state.environments.flatMap((e: any) => e.stores).find((s: any) => s.id === emu.test.store_id);
  return store.alerts as any[];
};
const setSettings = (settings: Record<string, unknown>) =>
  emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings });

describe('POST /orders/{order_id}/ack', () => {
  it('sets acknowledged, acknowledged_at and the codes, and emits order.updated', async () => {
    const order = await simulate(emu);
    const res = await ack(order.id, { external_id: 'ERP-1001', external_number: 'F001-0001001' });
    expect(res.status).toBe(200);
    expect(res.body.data.integration).toEqual({
      external_id: 'ERP-1001', external_number: 'F001-0001001', ack_status: 'acknowledged',
      acknowledged_at: res.body.data.updated_at, last_import_error: null,
    });
    const [event] = await updates(order.id);
    expect(event.data).toMatchObject({ changed: ['integration'], changed_by: { type: 'integration', integration_id: emu.test.integration_id } });
    expect(event.data.order).toEqual(res.body.data);
  });

  it('repeats with the same code without effect nor event, and answers 409 external_id_conflict for another code', async () => {
    const order = await simulate(emu);
    const first = await ack(order.id, { external_id: 'ERP-2001' });
    await emu.control('POST', '/clock/advance', { seconds: 5 });
    const again = await ack(order.id, { external_id: 'ERP-2001' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(await updates(order.id)).toHaveLength(1);
    const other = await ack(order.id, { external_id: 'ERP-2002' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('external_id_conflict');
  });

  it('answers 409 external_id_conflict for a code that already names another order', async () => {
    const a = await simulate(emu);
    const b = await simulate(emu);
    await ack(a.id, { external_id: 'ERP-3001' });
    const res = await ack(b.id, { external_id: 'ERP-3001' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('external_id_conflict');
  });

  it('answers 422 for a code outside the catalog format, a long external_number or an unknown field', async () => {
    const order = await simulate(emu);
    expect(fieldsOf(await ack(order.id, { external_id: 'con espacio' }))).toEqual(['external_id:invalid']);
    expect(fieldsOf(await ack(order.id, { external_id: 'A'.repeat(65) }))).toEqual(['external_id:invalid']);
    expect(fieldsOf(await ack(order.id, {}))).toEqual(['external_id:required']);
    expect(fieldsOf(await ack(order.id, { external_id: 'OK-1', external_number: 'x'.repeat(65) }))).toEqual(['external_number:too_long']);
    expect(fieldsOf(await ack(order.id, { external_id: 'OK-1', extra: true }))).toEqual(['extra:unknown_field']);
  });

  it('requires an Idempotency-Key', async () => {
    const order = await simulate(emu);
    const res = await emu.api('POST', `/orders/${order.id}/ack`, { body: { external_id: 'ERP-9' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_required');
  });
});

describe('POST /orders/{order_id}/import-failure', () => {
  it('sets failed with last_import_error and emits order.updated; ack afterwards works', async () => {
    const order = await simulate(emu, { scenario: 'unmapped_product' });
    const res = await fail(order.id, { code: 'unmapped_product', message: 'Producto sin código en el ERP', retryable: true });
    expect(res.status).toBe(200);
    expect(res.body.data.integration).toMatchObject({
      ack_status: 'failed',
      last_import_error: { code: 'unmapped_product', message: 'Producto sin código en el ERP', retryable: true, at: res.body.data.updated_at },
    });
    expect(await updates(order.id)).toHaveLength(1);
    const later = await ack(order.id, { external_id: 'ERP-4001' });
    expect(later.status).toBe(200);
    expect(later.body.data.integration.ack_status).toBe('acknowledged');
  });

  it('answers 409 already_acknowledged after an ack', async () => {
    const order = await simulate(emu);
    await ack(order.id, { external_id: 'ERP-5001' });
    const res = await fail(order.id, { code: 'other', message: 'Tarde' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_acknowledged');
  });

  it('requires an Idempotency-Key', async () => {
    const order = await simulate(emu);
    const res = await emu.api('POST', `/orders/${order.id}/import-failure`, { body: { code: 'other', message: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_required');
  });

  it('answers 422 for an unknown code, a message over 500 or missing', async () => {
    const order = await simulate(emu);
    expect(fieldsOf(await fail(order.id, { code: 'bad', message: 'x' }))).toEqual(['code:invalid_value']);
    expect(fieldsOf(await fail(order.id, { code: 'other', message: 'x'.repeat(501) }))).toEqual(['message:too_long']);
    expect(fieldsOf(await fail(order.id, { code: 'other' }))).toEqual(['message:required']);
    expect(fieldsOf(await fail(order.id, { code: 'other', message: '   ' }))).toEqual(['message:required']);
    expect(fieldsOf(await fail(order.id, { code: 'other', message: 'x', retryable: 'si' }))).toEqual(['retryable:invalid_type']);
  });
});

describe('panel alerts in GET /_emulator/state', () => {
  it('shows an order waiting for ack past ack_alert_minutes, and drops it once acknowledged', async () => {
    await emu.control('POST', '/reset');
    await seedMenu(emu);
    const order = await simulate(emu);
    await emu.control('POST', '/clock/advance', { seconds: 4 * 60 });
    expect(await alerts()).toEqual([]);
    await emu.control('POST', '/clock/advance', { seconds: 60 });
    expect(await alerts()).toEqual([expect.objectContaining({ type: 'ack_overdue', order_id: order.id, minutes_waiting: 5, ack_alert_minutes: 5 })]);
    await ack(order.id, { external_id: 'ERP-6001' });
    expect(await alerts()).toEqual([]);
  });

  it('shows import failures', async () => {
    await emu.control('POST', '/reset');
    await seedMenu(emu);
    const order = await simulate(emu);
    await fail(order.id, { code: 'register_closed', message: 'La caja está cerrada' });
    expect(await alerts()).toEqual([expect.objectContaining({ type: 'import_failed', order_id: order.id, code: 'register_closed' })]);
  });

  it('with ack_expected after_acceptance counts from acceptance, not from receipt', async () => {
    await emu.control('POST', '/reset');
    await seedMenu(emu);
    await setSettings({ ack_expected: 'after_acceptance', ack_alert_minutes: 2 });
    const order = await simulate(emu);
    await emu.control('POST', '/clock/advance', { seconds: 600 });
    expect(await alerts()).toEqual([]);
    await orderAction(emu, order.id, 'status', { status: 'accepted' });
    await emu.control('POST', '/clock/advance', { seconds: 120 });
    expect(await alerts()).toEqual([expect.objectContaining({ type: 'ack_overdue', order_id: order.id, minutes_waiting: 2 })]);
  });
});

describe('PATCH /_emulator/orders/{order_id}', () => {
  it('marks the payment paid and emits order.updated once', async () => {
    const order = await simulate(emu);
    const res = await emu.control('PATCH', `/orders/${order.id}`, { payment_status: 'paid' });
    expect(res.status).toBe(200);
    expect(res.body.data.payment.status).toBe('paid');
    await emu.control('PATCH', `/orders/${order.id}`, { payment_status: 'paid' });
    const events = await updates(order.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ changed: ['payment'], changed_by: { type: 'store_user', integration_id: null } });
    const bad = await emu.control('PATCH', `/orders/${order.id}`, { payment_status: 'unpaid' });
    expect(bad.status).toBe(422);
  });
});
