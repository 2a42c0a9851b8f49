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
    rx.behave = () => ({ status: 200, delayMs: 300 });
    const built: number[] = [];
    const start = Date.now();
    const sends = Array.from({ length: 4 }, () =>
      postWebhook(agents, rx.url, () => (built.push(Date.now() - start), headers()), '{}', 450),
    );
    const results = await Promise.all(sends);
    expect(results.map((r) => r.succeeded)).toEqual([true, true, true, true]);
    // Two slots: the last two sends start after the first two finished (~300 ms).
    expect(built.slice(2).every((ms) => ms >= 250)).toBe(true);
    expect(results.every((r) => r.durationMs < 450)).toBe(true);
  });
});
