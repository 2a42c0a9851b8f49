import { expect, it } from 'vitest';
import { describePostgres } from '../../store/contract/harness.js';
import { storeWithIntegration } from '../../store/contract/fixtures.js';
import { admin } from '../../../helpers/postgres.js';

// spec: the feed is in strict creation order; DESIGN, Storage and the team sandbox: positions are taken
// at commit, one emitting transaction after the other. An event's `created_at` is therefore the time it
// takes its position, never a time read before it waited for that position: otherwise a transaction
// that read the clock, then waited while another wrote a later event, lands after it with an earlier
// time (issue 24: 21 inversions in 59 events on PostgreSQL, 0 on SQLite).

const created = (n: number) => ({ order: { id: `ord_${n}` } }) as never;

/** Resolves once a backend of the test database waits on a lock (the feed's counter here). */
async function someoneWaitsOnALock(url: string): Promise<void> {
  for (;;) {
    const { rows } = await admin((c) => c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"), url);
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describePostgres('the time of an event on a shared sandbox', (h) => {
  it('is the time it takes its feed position: a transaction that waited behind a later event is stamped after it', async () => {
    const a = h.storage;
    const b = await h.openAnother();
    const { storeId, integrationId } = await storeWithIntegration(a.env('test'));
    let bHolds!: () => void;
    const holding = new Promise<void>((r) => (bHolds = r));
    let aWaits!: () => void;
    const waiting = new Promise<void>((r) => (aWaits = r));
    // Process b: its first event takes the feed's position (and holds it until commit); its second
    // comes later, once a has asked for its own position.
    const bWrites = b.env('test').tx(async (tx) => {
      await tx.emit('order.created', storeId, created(1), integrationId);
      bHolds();
      await waiting;
      h.clock.advance(1000);
      await tx.emit('order.created', storeId, created(2), integrationId);
    });
    await holding;
    h.clock.advance(1000);
    // Process a emits in between: its position comes after both of b's.
    const aWrites = a.env('test').tx((tx) => tx.emit('order.created', storeId, created(3), integrationId));
    await someoneWaitsOnALock(h.database!.url);
    aWaits();
    await Promise.all([aWrites, bWrites]);

    const feed = await a.env('test').events.feedPage({ integrationId, after: 0, cutoff: 0, types: ['order.created'], limit: 10 });
    expect(feed.map((e) => e.seq)).toEqual([1, 2, 3]);
    const times = feed.map((e) => e.createdAt);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    // a's event took its position after b's second: it is not older than it.
    expect(times[2]).toBeGreaterThanOrEqual(times[1]!);
  });
});
