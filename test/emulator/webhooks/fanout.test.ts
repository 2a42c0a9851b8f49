import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';
import { RETRY_DELAYS_MS } from '../../../emulator/webhooks/retry-schedule.js';

const EVENTS = 1000;
const SEED = 'fanout-7';
let emu: TestEmulator;
let rx: Receiver;
let rig: WebhookRig;
beforeAll(async () => {
  rig = await startWebhookRig({ seed: 7 });
  ({ emu, rx } = rig);
});
afterAll(() => rig.close());

/**
 * Fails 30 % of requests, decided by a hash of (seed, event number, attempt): ids carry the start-up
 * time, the event's own number does not, so every run makes the same decisions.
 */
function seededFailures(): Receiver['behave'] {
  const seen = new Map<number, number>();
  return (req) => {
    const n = JSON.parse(req.body).data.n as number;
    const attempt = (seen.get(n) ?? 0) + 1;
    seen.set(n, attempt);
    const roll = createHash('sha256').update(`${SEED}:${n}:${attempt}`).digest().readUInt32BE(0) / 2 ** 32;
    return roll < 0.3 ? { status: 503 } : { status: 200 };
  };
}

describe('fan-out under a flaky receiver', () => {
  it('delivers 1,000 events to a receiver failing 30 % of the time: all end succeeded after draining the schedule', async () => {
    rx.behave = seededFailures();
    const store = emu.running.emulator.env('test').store;
    const eventIds: string[] = [];
    for (let batch = 0; batch < EVENTS / 100; batch++) {
      await store.tx(async (tx) => {
        for (let i = 0; i < 100; i++) {
          eventIds.push((await tx.emit('webhook.test', emu.test.store_id, { n: batch * 100 + i }, emu.test.integration_id))[0]!.id);
        }
      });
    }
    await emu.control('POST', '/webhooks/drain');
    expect(rx.received.length).toBeGreaterThanOrEqual(EVENTS); // every first attempt made
    let failedAttempts = 0;
    for (const delay of RETRY_DELAYS_MS) {
      await emu.control('POST', '/clock/advance', { seconds: delay / 1000 });
      const round = (await emu.control('POST', '/webhooks/drain')).body.data;
      failedAttempts += round.failed;
    }
    expect((await emu.api('GET', '/webhook/deliveries?status=pending')).body.data).toEqual([]);
    expect((await emu.api('GET', '/webhook/deliveries?status=failed')).body.data).toEqual([]);
    expect((await emu.api('GET', '/webhook/deliveries?status=delivering')).body.data).toEqual([]);

    const ok = new Set<string>();
    const failed = rx.received.length - EVENTS;
    expect(failed).toBeGreaterThan(300); // the receiver really failed about 30 % of attempts
    expect(failedAttempts).toBeGreaterThan(0);
    const answers = new Map<string, number>();
    for (const r of rx.received) answers.set(r.headers['x-service-delivery-id'] as string, 0);
    // Every event reached the receiver at least once, none lost.
    for (const r of rx.received) ok.add(r.headers['x-service-event-id'] as string);
    expect(ok.size).toBe(EVENTS);
    expect([...ok].sort()).toEqual([...eventIds].sort());
    expect(answers.size).toBe(EVENTS);
    const succeeded = await store.webhooks.list(emu.test.integration_id, 'succeeded', 10 * EVENTS);
    expect(succeeded).toHaveLength(EVENTS);
  });
});
