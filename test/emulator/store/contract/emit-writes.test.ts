import { expect, it } from 'vitest';
import { describeAdapters, describePostgres } from './harness.js';
import { gate, id, order, simpleOutbox, storeWithIntegration, T0, webhook } from './fixtures.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import type { EventRecord } from '../../../../emulator/orders/repository.js';
import { admin } from '../../../helpers/postgres.js';

// issue 25: an emit's events and deliveries are part of its transaction however the adapter sends
// them. A server database writes them with the COMMIT, where they also take the feed counter's lock
// (held for no round trip of the process); a read of the same transaction still sees them, and
// positions go on from the last one taken, in the transaction and after it.

const created = (orderId: string) => ({ order: { id: orderId, notas: "it's \\ \"quoted\" \u2028 🍕 $1 ;" } }) as never;

/** Resolves once a backend of the test database waits on a lock. */
async function someoneWaitsOnALock(url: string): Promise<void> {
  for (;;) {
    const { rows } = await admin((c) => c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"), url);
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeAdapters('what an emit writes', (h) => {
  it('is seen by the rest of its transaction: events, deliveries, and the positions after them', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    h.outbox = simpleOutbox(() => h.clock.now());
    const seen: unknown[] = [];
    const written = await env.tx(async (tx) => {
      const [first] = await tx.emit('order.created', a.storeId, created('ord_1'));
      // Read back inside the transaction: the event, its delivery, the counter.
      seen.push(await tx.events.byId(first!.id));
      seen.push((await tx.webhooks.list(a.integrationId, null, 10)).map((d) => d.eventId));
      seen.push(await tx.events.maxSeq());
      const [second] = await tx.emit('order.updated', a.storeId, created('ord_1'), a.integrationId);
      const [third] = await tx.emit('order.updated', a.storeId, created('ord_2'));
      return [first!, second!, third!];
    });
    expect(seen).toEqual([written[0], [written[0]!.id], written[0]!.seq]);
    expect(written.map((e) => e.seq)).toEqual([written[0]!.seq, written[0]!.seq + 1, written[0]!.seq + 2]);
    for (const event of written) expect(await env.events.byId(event.id)).toEqual(event);
    expect(await env.events.maxSeq()).toBe(written[2]!.seq);
    expect((await env.webhooks.list(a.integrationId, null, 10)).map((d) => d.eventId)).toEqual(written.map((e) => e.id).reverse());
    // The stored text is the data's JSON, quotes, backslashes and all.
    const [page] = await env.events.feedPage({ integrationId: a.integrationId, after: 0, cutoff: 0, types: ['order.created'], limit: 1 });
    expect(page!.data.toString('utf8')).toBe(JSON.stringify(created('ord_1')));
    // The next transaction's position follows.
    const [next] = await env.tx((tx) => tx.emit('order.created', a.storeId, created('ord_3')));
    expect(next!.seq).toBe(written[2]!.seq + 1);
  });

  it('leaves nothing behind when a later statement of its transaction fails', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    h.outbox = simpleOutbox(() => h.clock.now());
    const before = await env.events.maxSeq();
    const duplicate = order(a.storeId, 1);
    await env.orders.insert(duplicate);
    await expect(env.tx(async (tx) => {
      await tx.emit('order.created', a.storeId, created('ord_1'));
      await tx.orders.insert(duplicate);
    })).rejects.toThrow();
    expect(await env.events.maxSeq()).toBe(before);
    expect(await env.webhooks.list(a.integrationId, null, 10)).toEqual([]);
  });
});

describePostgres('an emit on a server database', (h) => {
  it('costs its targets\' read and the COMMIT, whatever the number of targets and deliveries', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    const second = id('int');
    await env.integrations.insert({ id: second, storeId: a.storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    await env.webhooks.save(webhook(a.storeId, second));
    h.outbox = simpleOutbox(() => h.clock.now());
    roundTrips.countRequests();
    let events: EventRecord[] = [];
    const route = `emit ${Date.now()}`;
    await roundTrips.inRequest(async () => {
      roundTrips.name(route);
      events = await env.tx((tx) => tx.emit('order.created', a.storeId, created('ord_1')));
      roundTrips.answered();
    });
    // BEGIN sent with the targets' read (both integrations and their webhooks), then the counter's
    // lock and the writes with the COMMIT.
    expect(roundTrips.snapshot().requests[route]!.trips).toBe(2);
    expect(events.map((e) => e.integrationId)).toEqual([a.integrationId, second]);
    expect((await env.webhooks.list(second, null, 10)).map((d) => d.eventId)).toEqual([events[1]!.id]);
  });

  it('gives positions in commit order to transactions of two processes emitting at once', async () => {
    const a = h.storage;
    const b = await h.openAnother();
    const { storeId, integrationId } = await storeWithIntegration(a.env('test'));
    h.outbox = simpleOutbox(() => h.clock.now());
    const committed: number[] = [];
    const writers = [a, b, a, b, a, b].map((storage, w) => (async () => {
      for (let i = 0; i < 10; i++) {
        const [event] = await storage.env('test').tx((tx) => tx.emit('order.created', storeId, created(`ord_${w}_${i}`), integrationId));
        committed.push(event!.seq);
      }
    })());
    await Promise.all(writers);
    // Every position once, no gap, and a reader never meets a higher position before a lower one:
    // each transaction's position was handed out while it held the counter, until its commit (the
    // lock taken by the statements sent with that commit).
    const feed = await a.env('test').events.feedPage({ integrationId, after: 0, cutoff: 0, types: ['order.created'], limit: 100 });
    expect(feed.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect([...committed].sort((x, y) => x - y)).toEqual(feed.map((e) => e.seq));
  });
});

describeAdapters('a transaction\'s writes of an order', (h) => {
  it('present the order with the history its lock read and the entries it wrote', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    const o = order(a.storeId, 1);
    await env.orders.insert(o);
    await env.orders.addHistory(o.id, { status: 'pending', at: T0, by: 'customer', integrationId: null, reason: null });
    const entry = { status: 'accepted' as const, at: T0 + 5, by: 'integration' as const, integrationId: a.integrationId, reason: null };
    const inside = await env.tx(async (tx) => {
      const locked = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...locked, status: 'accepted', updatedAt: T0 + 5 });
      await tx.orders.addHistory(o.id, entry);
      return tx.orders.history(o.id);
    });
    expect(inside).toEqual(await env.orders.history(o.id));
    expect(inside.map((e) => e.status)).toEqual(['pending', 'accepted']);
    expect((await env.orders.byId(o.id))!.status).toBe('accepted');
  });

  it('fail whole when a write nobody waited for fails, even with nothing sent after it', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    const o = order(a.storeId, 1);
    await env.orders.insert(o);
    await expect(env.tx(async (tx) => {
      const locked = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...locked, notes: 'changed' });
      await tx.orders.insert(o); // the same id again
    })).rejects.toThrow();
    expect((await env.orders.byId(o.id))!.notes).toBe(o.notes);
  });
});

describePostgres('an order locked after another writer', (h) => {
  it('is presented with that writer\'s history entry', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const ids = await storeWithIntegration(a);
    const o = order(ids.storeId, 1);
    await a.orders.insert(o);
    await a.orders.addHistory(o.id, { status: 'pending', at: T0, by: 'customer', integrationId: null, reason: null });
    const holding = gate();
    const released = gate();
    const first = a.tx(async (tx) => {
      const row = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...row, status: 'accepted', updatedAt: T0 + 1 });
      await tx.orders.addHistory(o.id, { status: 'accepted', at: T0 + 1, by: 'store_user', integrationId: null, reason: null });
      await tx.orders.history(o.id);
      holding.open();
      await released.opened;
    });
    await holding.opened;
    // The second writer's lock waits for the first's commit; its statement's snapshot is from before it.
    const second = b.tx(async (tx) => {
      const row = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...row, status: 'ready', updatedAt: T0 + 2 });
      await tx.orders.addHistory(o.id, { status: 'ready', at: T0 + 2, by: 'store_user', integrationId: null, reason: null });
      return { status: row.status, history: (await tx.orders.history(o.id)).map((e) => e.status) };
    });
    await someoneWaitsOnALock(h.database!.url);
    released.open();
    await first;
    expect(await second).toEqual({ status: 'accepted', history: ['pending', 'accepted', 'ready'] });
  });
});
