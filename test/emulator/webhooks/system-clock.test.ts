import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { waitFor } from '../../helpers/wait.js';

let emu: TestEmulator;
let rx: Receiver;
beforeAll(async () => {
  emu = await startTestEmulator({ clock: 'system' });
  rx = await startReceiver();
  await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } });
});
afterAll(async () => {
  await emu.close();
  await rx.close();
});

/**
 * Until the emulator has recorded the first attempt's failure (and so its retry's time): a clock
 * moved while the receiver's 500 is still on its way back would move the retry with it.
 */
async function failureRecorded(deliveryId: string): Promise<void> {
  await waitFor(async () => {
    const list = await emu.api('GET', '/webhook/deliveries?limit=200');
    const d = list.body.data.find((x: { id: string }) => x.id === deliveryId);
    return d?.attempt_count === 1 && d.next_attempt_at;
  }, () => `delivery ${deliveryId}: the failed first attempt recorded`, { intervalMs: 25 });
}

/** A test webhook whose first attempt the receiver answers 500, once that failure is recorded (the retry's time set). */
async function firstAttemptFailed() {
  rx.received.length = 0;
  rx.behave = (_r, n) => (n === 0 ? { status: 500 } : { status: 200 });
  await emu.api('POST', '/webhook/test');
  const [first] = await rx.waitFor(1);
  await failureRecorded(first!.headers['x-service-delivery-id'] as string);
  return first!;
}

describe('dispatcher with the system clock', () => {
  // How soon is a figure for bench/webhooks, not an assertion: a slow machine takes longer.
  it('attempts a new delivery without any drain', async () => {
    await emu.api('POST', '/webhook/test');
    const [got] = await rx.waitFor(1);
    expect(JSON.parse(got!.body).type).toBe('webhook.test');
  });

  it('makes a due retry when the clock is advanced, without any drain', async () => {
    await firstAttemptFailed();
    expect(rx.received).toHaveLength(1);
    await emu.control('POST', '/clock/advance', { seconds: 60 });
    const got = await rx.waitFor(2);
    expect(got[1].headers['x-service-delivery-id']).toBe(got[0].headers['x-service-delivery-id']);
  });

  it('makes a retry when it falls due by the passing of real time (the timer loop)', async () => {
    await firstAttemptFailed();
    // 59 of the 60 s by the clock; the last second passes in real time: the retry comes no sooner.
    await emu.control('POST', '/clock/advance', { seconds: 59 });
    const got = await rx.waitFor(2);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(900);
  });
});

describe('dispatcher with the system clock on a slow turn', () => {
  it('makes a retry that fell due while the dispatcher was still looking for the next one', async () => {
    const first = await firstAttemptFailed();
    // The next look for a due retry is answered only once that retry is due (a loaded machine's slow
    // turn): the dispatcher then has nothing in flight and no completion to pump it again.
    const webhooks = (emu.running.emulator.storage as { env(e: 'test'): { webhooks: { nextDueAt(): Promise<number | null> } } }).env('test').webhooks;
    const nextDueAt = webhooks.nextDueAt;
    let slow = true;
    webhooks.nextDueAt = async () => {
      const at = await nextDueAt.call(webhooks);
      if (slow && at !== null) {
        slow = false;
        await new Promise((r) => setTimeout(r, 1_500));
      }
      return at;
    };
    try {
      await emu.control('POST', '/clock/advance', { seconds: 59 });
      const got = await rx.waitFor(2);
      expect(got[1]!.headers['x-service-delivery-id']).toBe(first.headers['x-service-delivery-id']);
      expect(slow).toBe(false);
    } finally {
      webhooks.nextDueAt = nextDueAt;
    }
  });
});
