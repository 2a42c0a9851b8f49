import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';

// TEST-ONLY option: the spec's 10 s timeout scaled down to 4 s; the receiver answers in 2 s, within
// it by 2 s (room for a busy machine's late timers). The pool holds 64 sockets per host: 150
// deliveries need three rounds (~6 s of real time), so a timer started before a socket is free would
// expire for the third round at the latest, and a timestamp taken then would be 4 s old.
const TIMEOUT_MS = 4000;
const ANSWER_MS = 2000;
const DELIVERIES = 150;
let emu: TestEmulator;
let rx: Receiver;
let rig: WebhookRig;
beforeAll(async () => {
  rig = await startWebhookRig({ webhookTimeoutMs: TIMEOUT_MS });
  ({ emu, rx } = rig);
});
afterAll(() => rig.close());

describe('many deliveries to one host at once', () => {
  it('counts the timeout from the real send: a receiver answering within it always succeeds', async () => {
    rx.behave = () => ({ status: 200, delayMs: ANSWER_MS });
    // One transaction: every delivery is due at the same instant and queued together.
    await emu.running.emulator.env('test').store.tx(async (tx) => {
      for (let i = 0; i < DELIVERIES; i++) await tx.emit('webhook.test', emu.test.store_id, { n: i }, emu.test.integration_id);
    });
    const drained = await emu.control('POST', '/webhooks/drain');
    expect(drained.body.data).toEqual({ attempted: DELIVERIES, succeeded: DELIVERIES, failed: 0 });
    const list = (await emu.api('GET', '/webhook/deliveries?limit=200')).body.data;
    expect(list).toHaveLength(DELIVERIES);
    expect(list.filter((d: any) => d.status !== 'succeeded' || d.attempt_count !== 1)).toEqual([]);
    // DESIGN: X-Service-Timestamp is the real time of sending — for the last round too.
    for (const got of rx.received) {
      expect(got.at / 1000 - Number(got.headers['x-service-timestamp'])).toBeLessThan(3);
    }
  });
});
