import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAgents, createAgents, postWebhook } from '../../../emulator/webhooks/sender.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';

const agents = createAgents(2);
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  closeAgents(agents);
  await rx.close();
});
const headers = () => ({ 'Content-Type': 'application/json' });

describe('postWebhook never throws', () => {
  it('resolves connection_error for a URL that does not parse', async () => {
    await expect(postWebhook(agents, 'not a url', headers, '{}', 500)).resolves.toMatchObject({ succeeded: false, error: 'connection_error' });
  });

  it('resolves connection_error when the request cannot be built (a header value Node refuses)', async () => {
    const bad = () => ({ 'X-Bad': 'a\nb' });
    await expect(postWebhook(agents, rx.url, bad, '{}', 500)).resolves.toMatchObject({ succeeded: false, error: 'connection_error' });
  });
});

describe('sends per host are capped at the pool size', () => {
  it('builds the headers only when a slot is free, so a waiting send is not timed', async () => {
    // Two slots: the first two sends hold them for 3 s; the last two wait that long for a slot, longer
    // than their own 2.5 s timeout, and still succeed (the receiver answers them at once): their
    // timeout starts when a slot is free. Were the wait timed, both would fail with a timeout.
    const received = rx.received.length;
    rx.behave = (_req, n) => (n < received + 2 ? { status: 200, delayMs: 3000 } : { status: 200 });
    const built: number[] = [];
    const start = Date.now();
    const sends = [60_000, 60_000, 2500, 2500].map((timeoutMs) =>
      postWebhook(agents, rx.url, () => (built.push(Date.now() - start), headers()), '{}', timeoutMs),
    );
    const results = await Promise.all(sends);
    expect(results.map((r) => r.succeeded)).toEqual([true, true, true, true]);
    expect(built.slice(2).every((ms) => ms >= 2900)).toBe(true);
    expect(results.slice(2).every((r) => r.durationMs < 2500)).toBe(true);
  });
});
