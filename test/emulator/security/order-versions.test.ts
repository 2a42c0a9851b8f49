import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';
import { orderAction, seedMenu, simulate } from '../../helpers/orders.js';

let rig: WebhookRig;
let emu: TestEmulator;
let rx: Receiver;
beforeAll(async () => {
  rig = await startWebhookRig({ clock: 'manual', limits: false });
  ({ emu, rx } = rig);
  await seedMenu(emu);
});
afterAll(() => rig.close());

describe('order versions under the manual clock', () => {
  it('gives every write a strictly later updated_at, so reordered deliveries can be put back in order', async () => {
    const order = await simulate(emu, { scenario: 'delivery' });
    await emu.control('POST', '/webhooks/drain');
    rx.received.length = 0;
    await emu.control('POST', '/webhooks/chaos', { reorder: true });

    // Six writes while the clock stands still.
    const writes = [
      () => orderAction(emu, order.id, 'import-failure', { code: 'other', message: 'caja cerrada', retryable: true }),
      () => orderAction(emu, order.id, 'ack', { external_id: 'ERP-1' }),
      () => orderAction(emu, order.id, 'status', { status: 'accepted', estimated_minutes: 20 }),
      () => emu.control('PATCH', `/orders/${order.id}`, { payment_status: 'paid' }),
      () => orderAction(emu, order.id, 'status', { status: 'preparing' }),
      () => orderAction(emu, order.id, 'status', { status: 'ready' }),
    ];
    const stamps: string[] = [order.updated_at];
    for (const write of writes) {
      const res = await write();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      stamps.push(res.body.data.updated_at);
    }
    const times = stamps.map((s) => Date.parse(s));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, `write ${i}`).toBe(1);

    await emu.control('POST', '/webhooks/drain');
    const delivered = rx.received.map((r) => JSON.parse(r.body)).filter((e) => e.data.order?.id === order.id);
    expect(delivered).toHaveLength(writes.length);
    const arrival = delivered.map((e) => Date.parse(e.data.order.updated_at));
    expect(arrival).toEqual([...arrival].sort((a, b) => b - a)); // reorder: newest first
    // "Drop the older version": keeping the newest updated_at leaves the last write.
    const newest = delivered.reduce((a, b) => (Date.parse(b.data.order.updated_at) > Date.parse(a.data.order.updated_at) ? b : a));
    expect(newest.data.order.status).toBe('ready');
    expect(newest.data.order.payment.status).toBe('paid');
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.updated_at).toBe(stamps.at(-1));
  });

  it('leaves updated_at alone on a write that changes nothing', async () => {
    const order = await simulate(emu, { scenario: 'pickup_invoice' });
    const first = await orderAction(emu, order.id, 'status', { status: 'accepted' });
    const same = await orderAction(emu, order.id, 'status', { status: 'accepted' });
    expect(same.body.data.updated_at).toBe(first.body.data.updated_at);
  });
});
