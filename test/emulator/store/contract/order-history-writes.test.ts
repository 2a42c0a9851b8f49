import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { order, storeWithIntegration, T0 } from './fixtures.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import type { HistoryRecord } from '../../../../emulator/orders/repository.js';

// A new order with its first history entry, and a status change with its entry, are written by one
// call (`insert(order, entry)`, `update(order, entry)`): on PostgreSQL one statement where they were
// two (issue 25), on both adapters exactly what `insert`/`update` then `addHistory` write.

const entry = (status: HistoryRecord['status'], at: number, integrationId: string | null = null): HistoryRecord => ({
  status, at, by: integrationId ? 'integration' : 'customer', integrationId, reason: status === 'cancelled' ? 'sin stock "hoy" ñ' : null,
});

describeAdapters('an order written with its history entry', (h) => {
  it('writes the order and the entry as the two calls do, and the transaction reads its own entries', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const together = order(storeId, 1);
    const apart = order(storeId, 2);
    /** The statements `write` sends before it first waits (a transaction's write is sent at once). */
    const sentBy = async (write: () => Promise<void>) => {
      const before = roundTrips.total.statements;
      const done = write();
      const sent = roundTrips.total.statements - before;
      await done;
      return sent;
    };
    const sent: number[] = [];
    const seen = await env.tx(async (tx) => {
      sent.push(await sentBy(() => tx.orders.insert(together, entry('pending', T0))));
      const locked = (await tx.orders.byId(together.id, { lock: true }))!;
      sent.push(await sentBy(() => tx.orders.update({ ...locked, status: 'accepted', updatedAt: T0 + 1 }, entry('accepted', T0 + 1, integrationId))));
      sent.push(await sentBy(() => tx.orders.update({ ...locked, status: 'cancelled', updatedAt: T0 + 2 }, entry('cancelled', T0 + 2, integrationId))));
      return tx.orders.history(together.id);
    });
    await env.tx(async (tx) => {
      await tx.orders.insert(apart);
      await tx.orders.addHistory(apart.id, entry('pending', T0));
      const locked = (await tx.orders.byId(apart.id, { lock: true }))!;
      await tx.orders.update({ ...locked, status: 'accepted', updatedAt: T0 + 1 });
      await tx.orders.addHistory(apart.id, entry('accepted', T0 + 1, integrationId));
      await tx.orders.update({ ...locked, status: 'cancelled', updatedAt: T0 + 2 });
      await tx.orders.addHistory(apart.id, entry('cancelled', T0 + 2, integrationId));
    });
    // On PostgreSQL each write and its entry leave as one statement (BEGIN goes with the first).
    if (h.kind === 'postgres') expect(sent.slice(1)).toEqual([1, 1]);
    // Inside the transaction its entries are read back in order, positions included.
    expect(seen.map((x) => x.status)).toEqual(['pending', 'accepted', 'cancelled']);
    expect(await env.orders.byId(together.id)).toEqual({ ...together, status: 'cancelled', updatedAt: T0 + 2 });
    expect(await env.orders.byId(apart.id)).toEqual({ ...apart, status: 'cancelled', updatedAt: T0 + 2 });
    expect(await env.orders.history(together.id)).toEqual(await env.orders.history(apart.id));
    expect(await env.orders.history(together.id)).toEqual([entry('pending', T0), entry('accepted', T0 + 1, integrationId), entry('cancelled', T0 + 2, integrationId)]);
  });

  it('writes neither when the transaction rolls back', async () => {
    const env = h.storage.env('test');
    const { storeId } = await storeWithIntegration(env);
    const o = order(storeId, 1);
    await env.tx((tx) => tx.orders.insert(o, entry('pending', T0)));
    await expect(env.tx(async (tx) => {
      const locked = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...locked, status: 'accepted', updatedAt: T0 + 1 }, entry('accepted', T0 + 1));
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect((await env.orders.byId(o.id))!.status).toBe(o.status);
    expect((await env.orders.history(o.id)).map((x) => x.status)).toEqual(['pending']);
  });
});
