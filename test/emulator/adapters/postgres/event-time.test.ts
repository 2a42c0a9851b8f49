import { expect, it } from 'vitest';
import { describePostgres } from '../../store/contract/harness.js';
import { gate, id, storeWithIntegration, T0, webhook } from '../../store/contract/fixtures.js';
import { admin } from '../../../helpers/postgres.js';
import { eventEnvelope } from '../../../../emulator/orders/event-envelope.js';
import { formatDate } from '../../../../src/contract/dates.js';
import type { Outbox } from '../../../../emulator/store/port.js';

// spec: the feed is in strict creation order; DESIGN, Storage and the team sandbox: positions are taken
// at commit, one emitting transaction after the other. An event's `created_at` is therefore never
// before the time of the event before it in the feed: otherwise a transaction that read the clock,
// then waited while another wrote a later event, lands after it with an earlier time (issue 24: 21
// inversions in 59 events on PostgreSQL, 0 on SQLite). Since issue 25's tenth step the position is
// taken by the statements sent with the COMMIT, after the clock was read: they lift the time to the
// previous event's, and the webhook's body says the same time as the feed.

const created = (n: number) => ({ order: { id: `ord_${n}` } }) as never;

/** Resolves once a backend of the test database waits on a lock (the feed's counter here). */
async function someoneWaitsOnALock(url: string): Promise<void> {
  for (;;) {
    const { rows } = await admin((c) => c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"), url);
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The outbox's delivery: the event's envelope as the body, at the event's time (webhooks/outbox.ts). */
const envelopeOutbox: Outbox = async (tx, event) => {
  if (!(await tx.webhooks.get(event.integrationId))) return 0;
  const body = JSON.stringify(eventEnvelope(event));
  await tx.webhooks.insertDelivery({ id: id('dlv'), integrationId: event.integrationId, eventId: event.id, eventType: event.type, body }, event.createdAt);
  return 1;
};

describePostgres('the time of an event on a shared sandbox', (h) => {
  it('is not before the event it follows in the feed: a transaction that read the clock, then waited behind a later event, is stamped with its time', async () => {
    const a = h.storage;
    const b = await h.openAnother();
    const { storeId, integrationId } = await storeWithIntegration(a.env('test'));
    await a.env('test').webhooks.save(webhook(storeId, integrationId));
    h.outbox = envelopeOutbox;
    const read = h.clock.now();
    // Process a emits (reads the clock), and commits only later.
    const aMayCommit = gate();
    const aEmitted = gate();
    const aWrites = a.env('test').tx(async (tx) => {
      const events = await tx.emit('order.created', storeId, created(1), integrationId);
      aEmitted.open();
      await aMayCommit.opened;
      return events;
    });
    await aEmitted.opened;
    h.clock.advance(1000);
    // Process b emits a second later and writes its event first (a read of its transaction sends it,
    // with the counter's lock), then holds the counter while a's COMMIT waits for it.
    const bHolds = gate();
    const bMayCommit = gate();
    const bWrites = b.env('test').tx(async (tx) => {
      const events = await tx.emit('order.created', storeId, created(2), integrationId);
      await tx.events.maxSeq();
      bHolds.open();
      await bMayCommit.opened;
      return events;
    });
    await bHolds.opened;
    aMayCommit.open();
    await someoneWaitsOnALock(h.database!.url);
    bMayCommit.open();
    const [[aEvent], [bEvent]] = await Promise.all([aWrites, bWrites]);

    const feed = await a.env('test').events.feedPage({ integrationId, after: 0, cutoff: 0, types: ['order.created'], limit: 10 });
    expect(feed.map((e) => e.id)).toEqual([bEvent!.id, aEvent!.id]);
    expect(feed.map((e) => e.createdAt)).toEqual([read + 1000, read + 1000]);
    // What emit returned is what was written, position and time.
    expect(feed.map((e) => [e.seq, e.createdAt])).toEqual([[bEvent!.seq, bEvent!.createdAt], [aEvent!.seq, aEvent!.createdAt]]);
    // The webhook's body carries the event's time as the feed does.
    const bodies = (await a.env('test').webhooks.list(integrationId, null, 10)).map((d) => JSON.parse(d.body));
    expect(bodies.map((x) => [x.id, x.created_at])).toEqual([[aEvent!.id, formatDate(read + 1000)], [bEvent!.id, formatDate(read + 1000)]]);
  });

  it('keeps the clock\'s reading when no event before it is later', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env, T0);
    await env.webhooks.save(webhook(storeId, integrationId));
    h.outbox = envelopeOutbox;
    const [first] = await env.tx((tx) => tx.emit('order.created', storeId, created(1)));
    h.clock.advance(250);
    const [second] = await env.tx((tx) => tx.emit('order.created', storeId, created(2)));
    expect(second!.createdAt).toBe(first!.createdAt + 250);
    expect((await env.events.byId(second!.id))!.createdAt).toBe(second!.createdAt);
    const bodies = (await env.webhooks.list(integrationId, null, 10)).map((d) => JSON.parse(d.body).created_at);
    expect(bodies).toEqual([formatDate(second!.createdAt), formatDate(first!.createdAt)]);
  });

  it('goes up with the positions when two processes emit at once while the clock moves', async () => {
    const a = h.storage;
    const b = await h.openAnother();
    const { storeId, integrationId } = await storeWithIntegration(a.env('test'));
    // Each transaction reads the clock at its emit, moves it on, and commits after the others'
    // turns: whichever commits first takes the lower position, whatever it read.
    const writers = [a, b, a, b].map((storage, w) => (async () => {
      for (let i = 0; i < 10; i++) {
        await storage.env('test').tx(async (tx) => {
          await tx.emit('order.created', storeId, created(w * 100 + i), integrationId);
          h.clock.advance(1);
          await new Promise((r) => setImmediate(r));
        });
      }
    })());
    await Promise.all(writers);
    const feed = await a.env('test').events.feedPage({ integrationId, after: 0, cutoff: 0, types: ['order.created'], limit: 100 });
    expect(feed.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const times = feed.map((e) => e.createdAt);
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });
});
