import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { key, orderAction, readAllEvents, seedMenu, simulate } from '../../helpers/orders.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
});
afterAll(() => emu.close());

const status = (orderId: string, body: unknown) => orderAction(emu, orderId, 'status', body);
const panel = (orderId: string, body: unknown) => emu.control('POST', `/orders/${orderId}/status`, body);
const setAuthority = (value: string) =>
  emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { order_status_authority: value } });
const statusEvents = async (orderId: string) =>
  (await readAllEvents(emu, 'types=order.status_changed')).filter((e) => e.data.order.id === orderId);
const fieldsOf = (res: { body: any }) => res.body.error.details.map((d: any) => `${d.field}:${d.code}`);

describe('POST /orders/{order_id}/status', () => {
  it('accepts with estimated_minutes and emits order.status_changed with previous_status and changed_by, also for the caller', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    const res = await status(order.id, { status: 'accepted', estimated_minutes: 35 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'accepted', estimated_minutes: 35, status_reason: null });
    expect(res.body.data.status_history.map((h: any) => [h.status, h.by])).toEqual([['pending', 'customer'], ['accepted', 'integration']]);
    const [event] = await statusEvents(order.id);
    expect(event.data.previous_status).toBe('pending');
    expect(event.data.changed_by).toEqual({ type: 'integration', integration_id: emu.test.integration_id });
    expect(event.data.order).toEqual(res.body.data);
  });

  it('moves forward skipping stages, out_for_delivery on a delivery order, and completes', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    await status(order.id, { status: 'accepted' });
    expect((await status(order.id, { status: 'out_for_delivery' })).body.data.status).toBe('out_for_delivery');
    const done = await status(order.id, { status: 'completed' });
    expect(done.body.data.status_history.map((h: any) => h.status)).toEqual(['pending', 'accepted', 'out_for_delivery', 'completed']);
    expect((await statusEvents(order.id)).map((e) => `${e.data.previous_status}>${e.data.order.status}`)).toEqual([
      'pending>accepted', 'accepted>out_for_delivery', 'out_for_delivery>completed',
    ]);
  });

  it('answers 200 without effect nor event for the same state', async () => {
    const order = await simulate(emu);
    await status(order.id, { status: 'accepted' });
    const before = (await emu.api('GET', `/orders/${order.id}`)).body.data;
    const same = await status(order.id, { status: 'accepted' });
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(before);
    expect(await statusEvents(order.id)).toHaveLength(1);
  });

  it('answers 409 invalid_status_transition with details.current_status', async () => {
    const order = await simulate(emu);
    const skip = await status(order.id, { status: 'preparing' });
    expect(skip.status).toBe(409);
    expect(skip.body.error).toMatchObject({ code: 'invalid_status_transition', details: { current_status: 'pending' } });
    await status(order.id, { status: 'accepted' });
    await status(order.id, { status: 'ready' });
    const back = await status(order.id, { status: 'preparing' });
    expect(back.body.error.details).toEqual({ current_status: 'ready' });
    const reject = await status(order.id, { status: 'rejected', reason: 'Tarde' });
    expect(reject.body.error.code).toBe('invalid_status_transition');
  });

  it('answers 409 for out_for_delivery on a pickup order', async () => {
    const order = await simulate(emu, { scenario: 'pickup_invoice' });
    await status(order.id, { status: 'accepted' });
    const res = await status(order.id, { status: 'out_for_delivery' });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ current_status: 'accepted' });
  });

  it('does not move final states', async () => {
    const order = await simulate(emu);
    await status(order.id, { status: 'cancelled', reason: 'El cliente llamó para anular' });
    for (const to of ['pending', 'accepted', 'completed', 'rejected']) {
      const res = await status(order.id, { status: to, ...(to === 'rejected' ? { reason: 'Motivo' } : {}) });
      expect(res.body.error.details).toEqual({ current_status: 'cancelled' });
    }
  });

  it('requires reason 3 to 255 for rejected and cancelled, and shows it as status_reason', async () => {
    const order = await simulate(emu);
    expect(fieldsOf(await status(order.id, { status: 'rejected' }))).toEqual(['reason:required']);
    expect(fieldsOf(await status(order.id, { status: 'cancelled', reason: 'no' }))).toEqual(['reason:too_short']);
    expect(fieldsOf(await status(order.id, { status: 'cancelled', reason: 'x'.repeat(256) }))).toEqual(['reason:too_long']);
    const res = await status(order.id, { status: 'rejected', reason: 'Sin stock de carne' });
    expect(res.body.data).toMatchObject({ status: 'rejected', status_reason: 'Sin stock de carne' });
    expect(res.body.data.status_history.at(-1)).toMatchObject({ status: 'rejected', by: 'integration', reason: 'Sin stock de carne' });
  });

  it('refuses a reason of only spaces as required (the customer would see an empty reason)', async () => {
    const order = await simulate(emu);
    expect(fieldsOf(await status(order.id, { status: 'rejected', reason: '    ' }))).toEqual(['reason:required']);
    expect(fieldsOf(await panel(order.id, { status: 'cancelled', reason: '   ', by: 'customer' }))).toEqual(['reason:required']);
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.status).toBe('pending');
  });

  it('takes estimated_minutes 1 to 600 only with accepted', async () => {
    const order = await simulate(emu);
    expect(fieldsOf(await status(order.id, { status: 'accepted', estimated_minutes: 0 }))).toEqual(['estimated_minutes:too_small']);
    expect(fieldsOf(await status(order.id, { status: 'accepted', estimated_minutes: 601 }))).toEqual(['estimated_minutes:too_big']);
    expect(fieldsOf(await status(order.id, { status: 'cancelled', reason: 'Motivo', estimated_minutes: 10 }))).toEqual(['estimated_minutes:not_allowed']);
  });

  it('answers 422 for an unknown status or field', async () => {
    const order = await simulate(emu);
    expect(fieldsOf(await status(order.id, { status: 'lost' }))).toEqual(['status:invalid_value']);
    expect(fieldsOf(await status(order.id, { status: 'accepted', color: 1 }))).toEqual(['color:unknown_field']);
  });

  it('records occurred_at as the history time, refusing a future one or one before created_at', async () => {
    const order = await simulate(emu);
    await emu.control('POST', '/clock/advance', { seconds: 120 });
    const now = emu.running.emulator.clock.now();
    expect(fieldsOf(await status(order.id, { status: 'accepted', occurred_at: new Date(now + 60_000).toISOString() }))).toEqual(['occurred_at:in_future']);
    const early = new Date(Date.parse(order.created_at) - 1000).toISOString();
    expect(fieldsOf(await status(order.id, { status: 'accepted', occurred_at: early }))).toEqual(['occurred_at:before_creation']);
    const at = new Date(now - 60_000).toISOString();
    const res = await status(order.id, { status: 'accepted', occurred_at: at });
    expect(Date.parse(res.body.data.status_history.at(-1).at)).toBe(now - 60_000);
    expect(Date.parse(res.body.data.updated_at)).toBe(now);
  });

  it('requires an Idempotency-Key and replays the first answer for the same key', async () => {
    const order = await simulate(emu);
    const none = await emu.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' } });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('idempotency_key_required');
    const k = key();
    const first = await emu.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: k });
    const again = await emu.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: k });
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('answers 403 status_authority_denied with authority service, and the panel still works', async () => {
    const order = await simulate(emu);
    await setAuthority('service');
    try {
      const res = await status(order.id, { status: 'accepted' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('status_authority_denied');
      expect((await panel(order.id, { status: 'accepted', by: 'store_user' })).status).toBe(200);
    } finally {
      await setAuthority('both');
    }
  });
});

describe('POST /_emulator/orders/{order_id}/status (panel and customer)', () => {
  it('changes status by store_user with the same machine and emits changed_by without integration', async () => {
    const order = await simulate(emu);
    const res = await panel(order.id, { status: 'accepted', estimated_minutes: 20 });
    expect(res.status).toBe(200);
    expect(res.body.data.status_history.at(-1)).toMatchObject({ status: 'accepted', by: 'store_user' });
    const [event] = await statusEvents(order.id);
    expect(event.data.changed_by).toEqual({ type: 'store_user', integration_id: null });
    const bad = await panel(order.id, { status: 'pending' });
    expect(bad.status).toBe(409);
    expect(bad.body.error.details).toEqual({ current_status: 'accepted' });
  });

  it('refuses store_user changes with authority erp, but lets a customer cancel a pending order', async () => {
    const order = await simulate(emu);
    await setAuthority('erp');
    try {
      const res = await panel(order.id, { status: 'accepted', by: 'store_user' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('status_authority_denied');
      const cancel = await panel(order.id, { status: 'cancelled', by: 'customer', reason: 'Me equivoqué de dirección' });
      expect(cancel.status).toBe(200);
      expect(cancel.body.data.status_history.at(-1)).toMatchObject({ status: 'cancelled', by: 'customer' });
    } finally {
      await setAuthority('both');
    }
  });

  it('never refuses the service itself (by system), whatever the authority', async () => {
    const order = await simulate(emu);
    await setAuthority('erp');
    try {
      const res = await panel(order.id, { status: 'cancelled', by: 'system', reason: 'Sin confirmación a tiempo' });
      expect(res.status).toBe(200);
      expect(res.body.data.status_history.at(-1)).toMatchObject({ status: 'cancelled', by: 'system' });
    } finally {
      await setAuthority('both');
    }
  });

  it('refuses a customer cancelling an accepted order', async () => {
    const order = await simulate(emu);
    await status(order.id, { status: 'accepted' });
    const res = await panel(order.id, { status: 'cancelled', by: 'customer', reason: 'Tarda mucho' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('status_authority_denied');
  });

  it('answers 404 for an unknown order and 422 for a bad body', async () => {
    expect((await panel('ord_01JD0000000000000000000000', { status: 'accepted' })).status).toBe(404);
    const order = await simulate(emu);
    expect(fieldsOf(await panel(order.id, { status: 'accepted', by: 'integration' }))).toEqual(['by:invalid_value']);
  });
});
