import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';

let emu: TestEmulator;
let rx: Receiver;
let rig: WebhookRig;
beforeAll(async () => {
  rig = await startWebhookRig({ seed: 3 });
  ({ emu, rx } = rig);
});
afterAll(() => rig.close());
beforeEach(async () => {
  await emu.control('DELETE', '/webhooks/chaos');
  await emu.control('POST', '/webhooks/drain');
  rx.received.length = 0;
});

const drain = async () => (await emu.control('POST', '/webhooks/drain')).body.data;

describe('POST /_emulator/webhooks/chaos', () => {
  it('with duplicate_rate 1 delivers every event twice: same event id, new delivery id', async () => {
    const set = await emu.control('POST', '/webhooks/chaos', { duplicate_rate: 1 });
    expect(set.body.data).toEqual({ duplicate_rate: 1, reorder: false, delay_ms: 0 });
    await emu.api('POST', '/webhook/test');
    await drain();
    expect(rx.received).toHaveLength(2);
    const [x, y] = rx.received;
    expect(x.headers['x-service-event-id']).toBe(y.headers['x-service-event-id']);
    expect(x.headers['x-service-delivery-id']).not.toBe(y.headers['x-service-delivery-id']);
    expect(x.body).toBe(y.body);
  });

  it('with reorder holds a burst and delivers it newest first', async () => {
    await emu.control('POST', '/webhooks/chaos', { reorder: true });
    for (let i = 0; i < 5; i++) await emu.api('POST', '/webhook/test');
    // Held until the drain on a manual clock: sent as they came, they would arrive oldest first.
    expect(rx.received).toHaveLength(0);
    expect(await drain()).toMatchObject({ attempted: 5, succeeded: 5 });
    const created = (await emu.api('GET', '/webhook/deliveries?limit=5')).body.data.map((d: any) => d.id); // newest first
    expect(rx.received.map((r) => r.headers['x-service-delivery-id'])).toEqual(created);
  });

  it('with delay_ms holds each attempt that long', async () => {
    await emu.control('POST', '/webhooks/chaos', { delay_ms: 200 });
    const started = Date.now();
    await emu.api('POST', '/webhook/test');
    await drain();
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].at - started).toBeGreaterThanOrEqual(190);
  });

  it('DELETE clears it, and reset clears it too', async () => {
    await emu.control('POST', '/webhooks/chaos', { duplicate_rate: 0.5, reorder: true, delay_ms: 10 });
    const cleared = await emu.control('DELETE', '/webhooks/chaos');
    expect(cleared.body.data).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
    await emu.control('POST', '/webhooks/chaos', { duplicate_rate: 0.5 });
    await emu.control('POST', '/reset');
    expect((await emu.control('GET', '/webhooks/chaos')).body.data).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
  });

  it('answers 422 for a duplicate_rate outside 0..1, a negative delay and an unknown field', async () => {
    const res = await emu.control('POST', '/webhooks/chaos', { duplicate_rate: 1.5, delay_ms: -1, shuffle: true });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(['delay_ms', 'duplicate_rate', 'shuffle']);
  });
});
