import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { orderAction, seedMenu, simulate } from '../../helpers/orders.js';

let emu: TestEmulator;
let rx: Receiver;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  rx = await startReceiver();
  await seedMenu(emu);
  await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } });
});
afterAll(async () => {
  await emu.close();
  await rx.close();
});

const drain = () => emu.control('POST', '/webhooks/drain');

describe('order events by webhook', () => {
  it('delivers order.created and order.status_changed with the complete order', async () => {
    rx.received.length = 0;
    const order = await simulate(emu, { scenario: 'delivery' });
    const accepted = await orderAction(emu, order.id, 'status', { status: 'accepted' });
    await drain();
    const bodies = rx.received.map((r) => JSON.parse(r.body));
    const created = bodies.find((b) => b.type === 'order.created');
    const changed = bodies.find((b) => b.type === 'order.status_changed');
    expect(created.data.order).toEqual(order);
    expect(changed.data).toMatchObject({ previous_status: 'pending', order: accepted.body.data });
  });

  it('does not deliver order events once orders:read is withdrawn', async () => {
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, {
      scopes: ['store:read', 'store:write', 'catalog:read', 'catalog:write', 'orders:write', 'webhooks:manage'],
    });
    await drain();
    rx.received.length = 0;
    await simulate(emu, { scenario: 'delivery' });
    await drain();
    expect(rx.received.map((r) => r.headers['x-service-event-type'])).not.toContain('order.created');
  });
});
