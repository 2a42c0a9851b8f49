import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeAdapters, describePostgres } from './harness.js';
import { order, storeWithIntegration, T0 } from './fixtures.js';
import { authRecords } from '../../../../emulator/stores/repository.js';
import { orderWithHistory } from '../../../../emulator/orders/repository.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';

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
