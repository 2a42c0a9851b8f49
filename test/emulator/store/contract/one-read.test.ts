import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeAdapters, describePostgres } from './harness.js';
import { order, storeWithIntegration, T0, webhook } from './fixtures.js';
import { authRecords } from '../../../../emulator/stores/repository.js';
import { orderWithHistory, type EventRecord } from '../../../../emulator/orders/repository.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import type { StoragePort } from '../../../../emulator/store/port.js';

/** The round trips `read` made on PostgreSQL (the adapter's own counter). */
async function tripsOf<T>(read: () => Promise<T>): Promise<{ value: T; trips: number }> {
  const before = roundTrips.total.trips;
  const value = await read();
  return { value, trips: roundTrips.total.trips - before };
}

// What every API request reads (its credential, integration and store) and what GET /orders/{id}
// reads (the order and its history) are one read each where the adapter can (issue 25), and the same
// records as the reads one by one, on both adapters.

describeAdapters('the reads of a request in one', (h) => {
  it('gives a credential with its integration and store exactly as the three reads do', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_secret').digest();
    // In a transaction: its notice goes with its COMMIT, not on its own while the read is counted.
    await env.tx(async (tx) => {
      await tx.credentials.insert('svk_a', integrationId, digest, T0);
      await tx.credentials.expireOthers(integrationId, 'svk_none', T0 + 9);
    });
    const { value: found, trips } = await tripsOf(() => authRecords(env, 'svk_a'));
    if (h.kind === 'postgres') expect(trips).toBe(1);
    expect(found).toEqual({
      credential: await env.credentials.byKey('svk_a'),
      integration: await env.integrations.byId(integrationId),
      store: await env.stores.byId(storeId),
    });
    expect(Buffer.isBuffer(found!.credential.secretSha256)).toBe(true);
    expect(found!.store.paymentMethods).toEqual(['cash', 'card_on_delivery']);
    expect(await authRecords(env, 'svk_nobody')).toBeUndefined();
  });

  it('gives an order with its history, oldest first, exactly as the two reads do', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const o = order(storeId, 1);
    await env.tx(async (tx) => {
      await tx.orders.insert(o);
      await tx.orders.addHistory(o.id, { status: 'pending', at: T0, by: 'customer', integrationId: null, reason: null });
      await tx.orders.addHistory(o.id, { status: 'accepted', at: T0 + 1, by: 'integration', integrationId, reason: 'ñandutí "ok" 🍕' });
    });
    const { value: found, trips } = await tripsOf(() => orderWithHistory(env.orders, o.id));
    if (h.kind === 'postgres') expect(trips).toBe(1);
    expect(found).toEqual({ order: await env.orders.byId(o.id), history: await env.orders.history(o.id) });
    expect(found!.history.map((x) => x.status)).toEqual(['pending', 'accepted']);
    const bare = order(storeId, 2);
    await env.tx((tx) => tx.orders.insert(bare));
    expect(await orderWithHistory(env.orders, bare.id)).toEqual({ order: await env.orders.byId(bare.id), history: [] });
    expect(await orderWithHistory(env.orders, 'ord_nobody')).toBeUndefined();
  });
});

describePostgres('the reads of a request in one, on a shared sandbox', (h) => {
  it('see a write acknowledged through another process at the next read (nothing kept between reads)', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId, integrationId } = await storeWithIntegration(a);
    await a.credentials.insert('svk_a', integrationId, Buffer.from([1, 2, 3]), T0);
    expect((await authRecords(b, 'svk_a'))!.credential.revokedAt).toBeNull();
    await a.credentials.revoke('svk_a', integrationId, T0 + 1);
    expect((await authRecords(b, 'svk_a'))!.credential.revokedAt).toBe(T0 + 1);

    const o = order(storeId, 1);
    await a.orders.insert(o);
    expect((await orderWithHistory(b.orders, o.id))!.history).toEqual([]);
    await a.tx(async (tx) => {
      const locked = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...locked, status: 'accepted', updatedAt: T0 + 2 });
      await tx.orders.addHistory(o.id, { status: 'accepted', at: T0 + 2, by: 'integration', integrationId, reason: null });
    });
    const seen = (await orderWithHistory(b.orders, o.id))!;
    expect(seen.order.status).toBe('accepted');
    expect(seen.history).toEqual([{ status: 'accepted', at: T0 + 2, by: 'integration', integrationId, reason: null }]);
  });
});

describeAdapters('the admission of an API request', (h) => {
  it('is one statement on a server database, and none on the embedded one (each question answers at once there)', async () => {
    if (h.kind === 'sqlite') return expect(h.storage.admissions).toBeUndefined();
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_secret').digest();
    await env.tx((tx) => tx.credentials.insert('svk_a', integrationId, digest, T0));
    const o = order(storeId, 1);
    await env.tx(async (tx) => {
      await tx.orders.insert(o);
      await tx.orders.addHistory(o.id, { status: 'pending', at: T0, by: 'customer', integrationId: null, reason: null });
    });
    await h.storage.coordination.clock.save({ mode: 'manual', offsetMs: 5, frozenAt: T0 });
    const { value: admission, trips } = await ownTripsOf(() => admit(h, { keyId: 'svk_a', digest }, o.id));
    expect(trips).toBe(1);
    expect(admission.shared).toEqual({ clock: { mode: 'manual', offsetMs: 5, frozenAt: T0 }, generation: 0 });
    expect(admission.records).toEqual(await authRecords(env, 'svk_a'));
    expect(admission.order).toEqual(await orderWithHistory(env.orders, o.id));
    expect(admission.hit).toEqual({ allowed: true, remaining: 119, retryAfterSeconds: 60 });
    expect(admission.blocked).toBe(false);
    expect((await admit(h, { keyId: 'svk_a', digest }, o.id)).hit!.remaining).toBe(118);
    // What the pipeline would count itself: the same window.
    expect((await h.storage.coordination.windows.hit('requests', integrationId, T0 + 5)).remaining).toBe(117);
    const none = await admit(h, null, 'ord_nobody');
    expect([none.records, none.order, none.hit]).toEqual([undefined, undefined, null]);
  });

  it('counts the request hit only for a credential the request will be admitted with', async () => {
    if (h.kind === 'sqlite') return;
    const env = h.storage.env('test');
    const { integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_secret').digest();
    const wrong = createHash('sha256').update('svs_other').digest();
    await env.credentials.insert('svk_a', integrationId, digest, T0);
    await h.storage.coordination.clock.save({ mode: 'manual', offsetMs: 0, frozenAt: T0 });
    const remaining = async () => (await h.storage.coordination.windows.hit('requests', integrationId, T0)).remaining;
    // A wrong secret: the records (the pipeline refuses them itself), no hit.
    const refused = await admit(h, { keyId: 'svk_a', digest: wrong }, null);
    expect(refused.records?.credential.keyId).toBe('svk_a');
    expect(refused.hit).toBeNull();
    expect(await remaining()).toBe(119);
    // A fault exists: the fault answers first, the pipeline counts after it.
    await h.storage.coordination.faults.add({ path: '/nothing', times: 1 });
    expect((await admit(h, { keyId: 'svk_a', digest }, null)).hit).toBeNull();
    await h.storage.coordination.faults.clear();
    // The IP used its 30 authentication failures of the minute: blocked, no hit.
    for (let i = 0; i < 30; i++) await h.storage.coordination.windows.hit('auth_failures', '192.0.2.9', T0);
    const blocked = await admit(h, { keyId: 'svk_a', digest }, null, '192.0.2.9');
    expect([blocked.blocked, blocked.hit]).toEqual([true, null]);
    expect(await remaining()).toBe(118);
    // Expired at the sandbox's time (its clock, not this process's), then revoked: no hit.
    await env.credentials.expireOthers(integrationId, 'svk_none', T0 + 1000);
    expect((await admit(h, { keyId: 'svk_a', digest }, null)).hit).not.toBeNull();
    await h.storage.coordination.clock.save({ mode: 'manual', offsetMs: 1000, frozenAt: T0 });
    expect((await admit(h, { keyId: 'svk_a', digest }, null)).hit).toBeNull();
    await h.storage.coordination.clock.save({ mode: 'manual', offsetMs: 0, frozenAt: T0 });
    await env.credentials.revoke('svk_a', integrationId, T0);
    expect((await admit(h, { keyId: 'svk_a', digest }, null)).hit).toBeNull();
  });

  it('sees a write acknowledged through another process (nothing kept between admissions)', async () => {
    if (h.kind === 'sqlite') return;
    const other = await h.openAnother();
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_secret').digest();
    await env.credentials.insert('svk_a', integrationId, digest, T0);
    const o = order(storeId, 1);
    await env.orders.insert(o);
    expect((await admit(h, { keyId: 'svk_a', digest }, o.id)).order!.order.status).toBe('pending');
    await other.env('test').orders.update({ ...o, status: 'accepted', updatedAt: T0 + 1 });
    await other.env('test').credentials.revoke('svk_a', integrationId, T0 + 1);
    await other.coordination.reset();
    const after = await admit(h, { keyId: 'svk_a', digest }, o.id);
    expect(after.order!.order.status).toBe('accepted');
    expect(after.records!.credential.revokedAt).toBe(T0 + 1);
    expect(after.shared.generation).toBe(1);
  });
});

let scopes = 0;

/** The round trips `read` made itself (counted in a scope of its own: a notice still under way from an earlier write is not its). */
async function ownTripsOf<T>(read: () => Promise<T>): Promise<{ value: T; trips: number }> {
  roundTrips.countRequests();
  const route = `admission ${++scopes}`;
  const value = await roundTrips.inRequest(async () => {
    roundTrips.name(route);
    const v = await read();
    roundTrips.answered();
    return v;
  });
  return { value, trips: roundTrips.snapshot().requests[route]!.trips };
}

function admit(h: { storage: StoragePort }, credential: { keyId: string; digest: Buffer } | null, orderId: string | null, ip = '192.0.2.1') {
  return h.storage.admissions!.admit({ environment: 'test', credential, ip, limits: true, realNow: T0, now: T0, read: orderId === null ? null : { kind: 'order', orderId } });
}

describeAdapters('a feed page after a cursor in one read', (h) => {
  it('gives the cursor\'s event, the counter and the page exactly as the reads one by one', async () => {
    const env = h.storage.env('test');
    if (h.kind === 'sqlite') return expect(env.events.feedAfter).toBeUndefined();
    const a = await storeWithIntegration(env);
    const b = await storeWithIntegration(env);
    const emitted: EventRecord[] = [];
    for (let i = 0; i < 4; i++) {
      await env.tx(async (tx) => {
        emitted.push(...(await tx.emit('order.created', a.storeId, { order_id: `ord_${i}` } as never, a.integrationId)));
        emitted.push(...(await tx.emit('order.created', b.storeId, { order_id: `ord_b${i}` } as never, b.integrationId)));
      });
    }
    const mine = emitted.filter((e) => e.integrationId === a.integrationId);
    const types = ['order.created'];
    const args = { integrationId: a.integrationId, cutoff: T0 - 1, types, limit: 2 };
    const { value: read, trips } = await ownTripsOf(() => env.events.feedAfter!({ ...args, cursor: { seq: mine[0]!.seq, createdAt: mine[0]!.createdAt } }));
    expect(trips).toBe(1);
    expect(read).toEqual({
      cursorEvent: { integrationId: a.integrationId, createdAt: mine[0]!.createdAt },
      maxSeq: await env.events.maxSeq(),
      rows: await env.events.feedPage({ ...args, after: mine[0]!.seq }),
    });
    expect(read.rows.map((r) => r.id)).toEqual([mine[1]!.id, mine[2]!.id]);
    expect(read.rows[0]!.data.toString('utf8')).toBe(JSON.stringify({ order_id: 'ord_1' }));
    // Another integration's event, a wrong time, a cursor past retention, no event there: from the start.
    const fromStart = await env.events.feedPage({ ...args, after: 0 });
    const theirs = emitted.find((e) => e.integrationId === b.integrationId)!;
    for (const cursor of [{ seq: theirs.seq, createdAt: theirs.createdAt }, { seq: mine[1]!.seq, createdAt: 1 }, { seq: 999, createdAt: T0 }]) {
      expect((await env.events.feedAfter!({ ...args, cursor })).rows).toEqual(fromStart);
    }
    const late = await env.events.feedAfter!({ ...args, cutoff: T0 + 1, cursor: { seq: mine[0]!.seq, createdAt: mine[0]!.createdAt } });
    expect(late).toEqual({ cursorEvent: { integrationId: a.integrationId, createdAt: mine[0]!.createdAt }, maxSeq: await env.events.maxSeq(), rows: [] });
    expect((await env.events.feedAfter!({ ...args, cursor: { seq: 999, createdAt: T0 } })).cursorEvent).toBeNull();
    // A page with nothing after the cursor.
    const last = mine.at(-1)!;
    expect((await env.events.feedAfter!({ ...args, cursor: { seq: last.seq, createdAt: last.createdAt } })).rows).toEqual([]);
  });
});

describeAdapters('what an emit reads of its targets', (h) => {
  it('is what the transaction reads of their integrations and webhooks, until it writes them', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    const seen: unknown[] = [];
    await env.tx(async (tx) => {
      await tx.emit('order.created', a.storeId, { order_id: 'ord_1' } as never);
      // As the outbox reads them (on PostgreSQL from the emit's own statement, without a round trip).
      const { value, trips } = await ownTripsOf(async () => [await tx.integrations.byId(a.integrationId), await tx.webhooks.get(a.integrationId)]);
      if (h.kind === 'postgres') expect(trips).toBe(0);
      seen.push(...value);
      await tx.webhooks.save(webhook(a.storeId, a.integrationId, { url: 'https://erp.example/other', updatedAt: T0 + 1 }));
      seen.push((await tx.webhooks.get(a.integrationId))!.url);
      expect(await tx.webhooks.get('int_nobody')).toBeUndefined();
    });
    expect(seen).toEqual([await env.integrations.byId(a.integrationId), webhook(a.storeId, a.integrationId), 'https://erp.example/other']);
  });
});
