import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

let n = 0;
const key = () => `flow-key-${++n}`;
async function create(extra: Record<string, unknown> = {}) {
  const res = await emu.api('POST', '/entregas', {
    idempotencyKey: key(),
    body: {
      request_key: `FLOW-${++n}`,
      customer: { name: 'Luis Ortiz', phone: '0981222333' },
      address: { line: 'Calle Palma 500' },
      payment_method: 'cash',
      customer_total: 50000,
      customer_fee: 8000,
      courier_fee: 10000,
      ...extra,
    },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}
const act = (id: string, action: string, body: unknown) => emu.api('POST', `/entregas/${id}/${action}`, { body, idempotencyKey: key() });

describe('independent delivery states', () => {
  it('goes requested → raise_fee → pickup → delivered with the customer code, keeping the history', async () => {
    const e = await create();
    const raised = await act(e.id, 'raise_fee', { amount: 15000 });
    expect(raised.status).toBe(200);
    expect(raised.body.data).toMatchObject({ status: 'requested', courier_fee: 15000, balance: 35000 });
    const picked = await act(e.id, 'pickup', { settlement_confirmed: true });
    expect(picked.body.data).toMatchObject({ status: 'picked_up', settlement_confirmed: true });

    const wrong = await emu.control('POST', `/entregas/${e.id}/deliver`, { delivery_code: e.delivery_code === '0000' ? '1111' : '0000' });
    expect(wrong.status).toBe(422);
    const done = await emu.control('POST', `/entregas/${e.id}/deliver`, { delivery_code: e.delivery_code });
    expect(done.body.data.status).toBe('delivered');
    const read = await emu.api('GET', `/entregas/${e.id}`);
    expect(read.body.data.history.map((h: any) => h.status)).toEqual(['requested', 'requested', 'picked_up', 'delivered']);
  });

  it('cancels a requested delivery with a reason; balance 0', async () => {
    const e = await create();
    const res = await act(e.id, 'cancel', { reason: 'El cliente ya no lo quiere' });
    expect(res.body.data).toMatchObject({ status: 'cancelled', cancel_reason: 'El cliente ya no lo quiere', balance: 0 });
  });

  it('returns picked-up goods with a return fee; the merchant owes fee plus return fee', async () => {
    const e = await create();
    await act(e.id, 'pickup', { settlement_confirmed: true });
    const res = await act(e.id, 'returned', { goods_received: true, return_fee: 5000 });
    expect(res.body.data).toMatchObject({ status: 'returned', goods_received: true, return_fee: 5000, balance: -15000 });
  });

  it('requires refund_confirmed on a return when the customer had paid, and refuses it when not applicable', async () => {
    const paid = await create({ payment_method: 'qr' });
    await act(paid.id, 'pickup', { settlement_confirmed: true });
    const missing = await act(paid.id, 'returned', { goods_received: true });
    expect(missing.body.error.details[0]).toMatchObject({ field: 'refund_confirmed', code: 'required' });
    expect((await act(paid.id, 'returned', { goods_received: true, refund_confirmed: true })).body.data.refund_confirmed).toBe(true);

    const cash = await create();
    await act(cash.id, 'pickup', { settlement_confirmed: true });
    const extra = await act(cash.id, 'returned', { goods_received: true, refund_confirmed: true });
    expect(extra.body.error.details[0]).toMatchObject({ field: 'refund_confirmed', code: 'not_applicable' });
  });

  it.each([
    ['pickup without settlement_confirmed true', 'pickup', { settlement_confirmed: false }, 'settlement_confirmed'],
    ['raise_fee with a lower amount', 'raise_fee', { amount: 9000 }, 'amount'],
    ['raise_fee with a decimal amount', 'raise_fee', { amount: 12000.5 }, 'amount'],
    ['cancel with a 2-character reason', 'cancel', { reason: 'no' }, 'reason'],
    ['an unknown field', 'cancel', { reason: 'Sin stock', note: 'x' }, 'note'],
  ])('answers 422 for %s', async (_name, action, body, field) => {
    const e = await create();
    const res = await act(e.id, action, body);
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe(field);
  });

  it.each([
    ['returned before pickup', 'requested', 'returned', { goods_received: true }],
    ['cancel after pickup', 'picked_up', 'cancel', { reason: 'Demasiado tarde' }],
    ['raise_fee after pickup', 'picked_up', 'raise_fee', { amount: 20000 }],
    ['pickup twice', 'picked_up', 'pickup', { settlement_confirmed: true }],
  ])('answers 409 invalid_status_transition with details.current_status for %s', async (_name, state, action, body) => {
    const e = await create();
    if (state === 'picked_up') await act(e.id, 'pickup', { settlement_confirmed: true });
    const res = await act(e.id, action, body);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_status_transition', details: { current_status: state } });
  });

  it('answers 409 to every action on a final delivery', async () => {
    const e = await create();
    await act(e.id, 'cancel', { reason: 'Pedido duplicado' });
    for (const [action, body] of [['pickup', { settlement_confirmed: true }], ['cancel', { reason: 'Otra vez' }], ['raise_fee', { amount: 99999 }]] as const) {
      expect((await act(e.id, action, body)).body.error.details).toEqual({ current_status: 'cancelled' });
    }
  });

  it('answers 400 idempotency_key_required to an action without Idempotency-Key', async () => {
    const e = await create();
    const res = await emu.api('POST', `/entregas/${e.id}/cancel`, { body: { reason: 'Sin repartidor' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_required');
    expect((await emu.api('GET', `/entregas/${e.id}`)).body.data.status).toBe('requested');
  });

  it('answers 404 for an unknown delivery and 422 for an unknown action', async () => {
    expect((await act('ent_01JD0000000000000000000000', 'pickup', { settlement_confirmed: true })).status).toBe(404);
    const e = await create();
    const res = await act(e.id, 'teleport', {});
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe('action');
  });

  it('replays an action sent again with the same Idempotency-Key', async () => {
    const e = await create();
    const body = { amount: 11000 };
    const first = await emu.api('POST', `/entregas/${e.id}/raise_fee`, { body, idempotencyKey: 'same-key-123' });
    const again = await emu.api('POST', `/entregas/${e.id}/raise_fee`, { body, idempotencyKey: 'same-key-123' });
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body.data.courier_fee).toBe(first.body.data.courier_fee);
  });
});
