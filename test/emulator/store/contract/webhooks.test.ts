import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { id, storeWithIntegration, T0, webhook } from './fixtures.js';
import type { EnvStore } from '../../../../emulator/store/port.js';

// The adapter contract for the delivery queue: claims of due deliveries, oldest first, settled by
// their token; manual claims; attempts numbered in order; the observer's read about one order.

const lease = { owner: 'process-a', until: Date.now() + 60_000 };

async function queue(env: EnvStore, count: number, now = T0) {
  const a = await storeWithIntegration(env);
  await env.webhooks.save(webhook(a.storeId, a.integrationId));
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const d = id('dlv');
    ids.push(d);
    const body = JSON.stringify({ id: `evt_${i}`, type: 'order.created', data: { order: { id: `ord_${i % 2}`, status: i ? 'accepted' : 'pending' } } });
    await env.webhooks.insertDelivery({ id: d, integrationId: a.integrationId, eventId: `evt_${i}`, eventType: 'order.created', body }, now + i);
  }
  return { ...a, ids };
}

describeAdapters('webhook deliveries', (h) => {
  it('claims due deliveries oldest first, once, and settles them by their token', async () => {
    const env = h.storage.env('test');
    const q = await queue(env, 3);
    expect(await env.webhooks.anyDue(T0 - 1)).toBe(false);
    expect(await env.webhooks.anyDue(T0 + 1)).toBe(true);
    expect(await env.webhooks.nextDueAt()).toBe(T0);
    const claimed = await env.webhooks.claimDue(T0 + 1, 10, lease);
    expect(claimed.map((d) => d.id)).toEqual(q.ids.slice(0, 2));
    expect(claimed[0]).toMatchObject({ status: 'delivering', attemptCount: 0, nextAttemptAt: T0, createdAt: T0, updatedAt: T0, claimToken: expect.any(String) });
    expect(await env.webhooks.claimDue(T0 + 1, 10, lease)).toEqual([]);
    expect((await env.webhooks.delivery(q.ids[0]!))!.status).toBe('delivering');
    expect(await env.webhooks.settle(q.ids[0]!, claimed[0]!.claimToken, { status: 'succeeded', attemptCount: 1, nextAttemptAt: null }, T0 + 5)).toBe(true);
    expect(await env.webhooks.delivery(q.ids[0]!)).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null, updatedAt: T0 + 5 });
    // Settled once: the claim is over.
    expect(await env.webhooks.settle(q.ids[0]!, claimed[0]!.claimToken, { status: 'failed', attemptCount: 9, nextAttemptAt: null }, T0 + 6)).toBe(false);
    expect(await env.webhooks.nextDueAt()).toBe(T0 + 2);
  });

  it('claims nothing of a paused or inactive webhook', async () => {
    const env = h.storage.env('live');
    const q = await queue(env, 1);
    await env.webhooks.save(webhook(q.storeId, q.integrationId, { paused: true }));
    expect(await env.webhooks.claimDue(T0 + 10, 10, lease)).toEqual([]);
    expect(await env.webhooks.anyDue(T0 + 10)).toBe(false);
    expect(await env.webhooks.nextDueAt()).toBeNull();
    await env.webhooks.save(webhook(q.storeId, q.integrationId, { active: false }));
    expect(await env.webhooks.claimDue(T0 + 10, 10, lease)).toEqual([]);
  });

  it('claims one delivery by hand from the status given, and only from it', async () => {
    const env = h.storage.env('test');
    const q = await queue(env, 1);
    const [d] = await env.webhooks.claimDue(T0, 1, lease);
    await env.webhooks.settle(d!.id, d!.claimToken, { status: 'failed', attemptCount: 9, nextAttemptAt: null }, T0 + 1);
    expect(await env.webhooks.claim(q.ids[0]!, 'pending', T0 + 2, lease)).toBeUndefined();
    const manual = await env.webhooks.claim(q.ids[0]!, 'failed', T0 + 2, lease);
    expect(manual).toMatchObject({ id: q.ids[0], status: 'delivering', attemptCount: 9, claimToken: expect.any(String) });
    expect(await env.webhooks.claim(q.ids[0]!, 'failed', T0 + 3, lease)).toBeUndefined();
    expect(await env.webhooks.settle(q.ids[0]!, manual!.claimToken, { status: 'succeeded', attemptCount: 9, nextAttemptAt: null }, T0 + 4)).toBe(true);
  });

  it('numbers attempts in order and answers the observer by order', async () => {
    const env = h.storage.env('test');
    const q = await queue(env, 3);
    await env.webhooks.insertAttempt({ deliveryId: q.ids[0]!, attemptedAt: T0 + 10, manual: false, succeeded: false, responseStatus: 500, error: 'HTTP 500', durationMs: 12 });
    await env.webhooks.insertAttempt({ deliveryId: q.ids[0]!, attemptedAt: T0 + 20, manual: true, succeeded: true, responseStatus: 200, error: null, durationMs: 7 });
    await env.webhooks.insertAttempt({ deliveryId: q.ids[2]!, attemptedAt: T0 + 30, manual: false, succeeded: false, responseStatus: null, error: 'timeout', durationMs: 10_000 });
    expect(await env.webhooks.attempts(q.ids[0]!)).toEqual([
      { deliveryId: q.ids[0], number: 1, attemptedAt: T0 + 10, manual: false, succeeded: false, responseStatus: 500, error: 'HTTP 500', durationMs: 12 },
      { deliveryId: q.ids[0], number: 2, attemptedAt: T0 + 20, manual: true, succeeded: true, responseStatus: 200, error: null, durationMs: 7 },
    ]);
    const about = await env.webhooks.deliveriesAboutOrder(q.integrationId, 'ord_0');
    expect(about).toEqual([
      { orderId: 'ord_0', orderStatus: 'pending', eventId: 'evt_0', eventType: 'order.created', body: expect.any(String), status: 'pending', succeededAt: T0 + 20, answeredAt: T0 + 27, lastResponseStatus: 200 },
      { orderId: 'ord_0', orderStatus: 'accepted', eventId: 'evt_2', eventType: 'order.created', body: expect.any(String), status: 'pending', succeededAt: null, answeredAt: null, lastResponseStatus: null },
    ]);
    expect((await env.webhooks.list(q.integrationId, 'pending', 2)).map((d) => d.id)).toEqual([q.ids[2], q.ids[1]]);
  });
});
