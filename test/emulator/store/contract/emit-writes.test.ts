import { expect, it } from 'vitest';
import { describeAdapters, describePostgres } from './harness.js';
import { id, order, simpleOutbox, storeWithIntegration, T0, webhook } from './fixtures.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import type { EventRecord } from '../../../../emulator/orders/repository.js';

// issue 25: an emit's events and deliveries are part of its transaction however the adapter sends
// them. A server database writes them with the COMMIT (the feed counter's lock is then held for no
// round trip after the emit's own statement); a read of the same transaction still sees them, and
// positions go on from the last one taken, in the transaction and after it.

const created = (orderId: string) => ({ order: { id: orderId, notas: "it's \\ \"quoted\" \u2028 🍕 $1 ;" } }) as never;

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
  it('costs its lock statement and the COMMIT, whatever the number of targets and deliveries', async () => {
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
    // BEGIN, the counter's lock with both targets and their webhooks, the writes with the COMMIT.
    expect(roundTrips.snapshot().requests[route]!.trips).toBe(3);
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
    // each transaction's position was handed out while it held the counter, until its commit.
    const feed = await a.env('test').events.feedPage({ integrationId, after: 0, cutoff: 0, types: ['order.created'], limit: 100 });
    expect(feed.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect([...committed].sort((x, y) => x - y)).toEqual(feed.map((e) => e.seq));
  });
});
