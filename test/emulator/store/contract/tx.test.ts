import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { order, simpleOutbox, storeWithIntegration, T0, webhook } from './fixtures.js';
import type { Change } from '../../../../emulator/store/changes.js';

// The adapter contract for units of work: all or nothing, hooks after commit, and emit as the port
// says (an event per integration, the outbox in the same transaction, the change told after commit).

const created = (id: string, status = 'pending') => ({ order: { id, status, number: 1, total: '110000.00', notas: 'Ñ "x" \u2028 🍕' } });

describeAdapters('transactions', (h) => {
  it('commits every write of the unit together and runs afterCommit hooks after, in order', async () => {
    const env = h.storage.env('test');
    const seen: string[] = [];
    const { storeId } = await env.tx(async (tx) => {
      const ids = await storeWithIntegration(tx);
      await tx.orders.insert(order(ids.storeId, 1));
      tx.afterCommit(() => seen.push('first'));
      tx.afterCommit(() => seen.push('second'));
      expect(seen).toEqual([]);
      return ids;
    });
    expect(seen).toEqual(['first', 'second']);
    expect(await env.orders.lastNumber(storeId)).toBe(1);
  });

  it('rolls every write back when the work throws, and runs no hook', async () => {
    const env = h.storage.env('test');
    let storeId = '';
    const hooks: string[] = [];
    await expect(
      env.tx(async (tx) => {
        storeId = (await storeWithIntegration(tx)).storeId;
        await tx.orders.insert(order(storeId, 1));
        tx.afterCommit(() => hooks.push('ran'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(hooks).toEqual([]);
    expect(await env.stores.byId(storeId)).toBeUndefined();
    expect(await env.orders.lastNumber(storeId)).toBe(0);
  });

  it('emits one event per integration of the store, through the outbox, and tells the change after commit', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    const second = 'int_' + 'Z'.repeat(26);
    await env.integrations.insert({ id: second, storeId: a.storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    h.outbox = simpleOutbox(() => h.clock.now());
    const changes: Change[] = [];
    h.storage.changes.on('events', (c) => changes.push(c));
    let inside = -1;
    const events = await env.tx(async (tx) => {
      const out = await tx.emit('order.created', a.storeId, created('ord_1') as never);
      inside = changes.length;
      return out;
    });
    expect(inside).toBe(0);
    expect(changes).toEqual([{ topic: 'events', environment: 'test', storeId: a.storeId, type: 'order.created' }]);
    expect(events.map((e) => e.integrationId)).toEqual([a.integrationId, second]);
    expect(events[1]!.seq).toBe(events[0]!.seq + 1);
    expect(events[0]).toMatchObject({ type: 'order.created', storeId: a.storeId, createdAt: h.clock.now(), data: created('ord_1') });
    expect(await env.events.byId(events[0]!.id)).toEqual(events[0]);
    expect(await env.events.bySeq(events[1]!.seq)).toEqual(events[1]);
    // The outbox queued one delivery: only the first integration has a webhook.
    const deliveries = await env.webhooks.list(a.integrationId, null, 10);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ eventId: events[0]!.id, status: 'pending', attemptCount: 0, nextAttemptAt: h.clock.now() });
    expect(await env.webhooks.list(second, null, 10)).toEqual([]);
  });

  it('leaves no event, delivery, change or gap behind a rolled-back emit', async () => {
    const env = h.storage.env('live');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    h.outbox = simpleOutbox(() => h.clock.now());
    const changes: Change[] = [];
    h.storage.changes.on('events', (c) => changes.push(c));
    const [first] = await env.tx((tx) => tx.emit('order.created', a.storeId, created('ord_1') as never));
    await expect(env.tx(async (tx) => {
      await tx.emit('order.created', a.storeId, created('ord_2') as never);
      throw new Error('no');
    })).rejects.toThrow('no');
    const [third] = await env.tx((tx) => tx.emit('order.created', a.storeId, created('ord_3') as never, a.integrationId));
    expect(third!.seq).toBe(first!.seq + 1);
    expect(await env.events.maxSeq()).toBe(third!.seq);
    expect(changes).toHaveLength(2);
    expect((await env.webhooks.list(a.integrationId, null, 10)).map((d) => d.eventId)).toEqual([third!.id, first!.id]);
  });

  it('pages the feed in position order with the stored text as its bytes', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    const written = [];
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      const type = i % 2 ? 'order.status_changed' : 'order.created';
      written.push(...(await env.tx((tx) => tx.emit(type as never, a.storeId, created(`ord_${i}`, i % 2 ? 'accepted' : 'pending') as never))));
    }
    const page = await env.events.feedPage({ integrationId: a.integrationId, after: written[0]!.seq, cutoff: 0, types: ['order.created', 'order.status_changed'], limit: 3 });
    expect(page.map((e) => e.seq)).toEqual(written.slice(1, 4).map((e) => e.seq));
    expect(Buffer.isBuffer(page[0]!.data)).toBe(true);
    expect(page[0]!.data.equals(Buffer.from(JSON.stringify(written[1]!.data)))).toBe(true);
    expect(page[0]).toEqual({ seq: written[1]!.seq, id: written[1]!.id, type: 'order.status_changed', storeId: a.storeId, integrationId: a.integrationId, createdAt: written[1]!.createdAt, data: page[0]!.data });
    const created_ = await env.events.feedPage({ integrationId: a.integrationId, after: 0, cutoff: written[2]!.createdAt, types: ['order.created'], limit: 10 });
    expect(created_.map((e) => e.seq)).toEqual([written[2]!.seq, written[4]!.seq]);
    expect(await env.events.latestSeq(a.integrationId, 0)).toBe(written[4]!.seq);
    expect(await env.events.latestSeq(a.integrationId, h.clock.now() + 1)).toBeNull();
    expect(await env.events.purgeBefore(written[2]!.createdAt)).toBe(2);
    expect(await env.events.byId(written[0]!.id)).toBeUndefined();
    // Positions are never reused: the next event follows the highest ever handed out.
    expect(await env.events.maxSeq()).toBe(written[4]!.seq);
  });

  it('tells the auth, catalog, orders and webhooks changes of a unit of work', async () => {
    const env = h.storage.env('test');
    const seen: string[] = [];
    for (const topic of ['auth', 'orders', 'webhooks'] as const) h.storage.changes.on(topic, (c) => seen.push(c.topic));
    const a = await env.tx(async (tx) => {
      const ids = await storeWithIntegration(tx);
      await tx.orders.insert(order(ids.storeId, 1));
      await tx.webhooks.save(webhook(ids.storeId, ids.integrationId));
      return ids;
    });
    expect(new Set(seen)).toEqual(new Set(['auth', 'orders', 'webhooks']));
    seen.length = 0;
    await env.integrations.activate(a.integrationId, T0 + 1);
    expect(seen).toContain('auth');
  });
});
