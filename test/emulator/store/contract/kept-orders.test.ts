import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { order, storeWithIntegration, T0 } from './fixtures.js';
import { orderWithHistory, type HistoryRecord, type OrderRecord } from '../../../../emulator/orders/repository.js';
import type { EnvStore } from '../../../../emulator/store/port.js';
import { integrationSettings, SCOPES } from '../../../../src/contract/store.js';

// issue 25: a server database's admission keeps the orders GET /orders/{id} read, each with its stamp
// (the order row's version and its history's last position), and the statement sends an order again
// only when that stamp moved. So the order handed out is the kept one exactly while neither the order
// nor its history changed, and any committed write through any process — a status change, an
// acknowledgement, a history entry alone, a reset, a restore — is in the next read. The embedded
// database reads the order each time (one process; the route keeps texts itself, under its change
// reports): the same writes are in its next read too.

type Found = { order: OrderRecord; history: HistoryRecord[] } | undefined;

const entry = (status: HistoryRecord['status'], at: number): HistoryRecord => ({ status, at, by: 'integration', integrationId: null, reason: null });

describeAdapters('the orders a process keeps', (h) => {
  it('answers the kept order while it is unchanged, and every committed write through another process at the next read', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_orders').digest();
    await env.credentials.insert('svk_orders', integrationId, digest, T0);
    // The order as GET /orders/{id} gets it: through the admission on a server database, from the repository otherwise.
    const read = async (orderId: string): Promise<Found> => {
      if (!h.storage.admissions) return orderWithHistory(env.orders, orderId);
      const admitted = await h.storage.admissions.admit({
        environment: 'test', credential: { keyId: 'svk_orders', digest }, ip: '192.0.2.1', limits: true, realNow: T0, now: T0,
        read: { kind: 'order', orderId },
      });
      return admitted.order;
    };
    // Writes go through another process on a server database (the embedded one has one process).
    const other = h.kind === 'postgres' ? await h.openAnother() : h.storage;
    const writer: EnvStore = other.env('test');
    const expected = (orderId: string) => orderWithHistory(writer.orders, orderId);

    const o = order(storeId, 1);
    const neighbour = order(storeId, 2);
    await writer.tx(async (tx) => {
      await tx.orders.insert(o);
      await tx.orders.addHistory(o.id, entry('pending', T0));
      await tx.orders.insert(neighbour);
      await tx.orders.addHistory(neighbour.id, entry('pending', T0));
    });
    let before = await read(o.id);
    expect(before).toEqual(await expected(o.id));
    expect(before!.history).toHaveLength(1);
    // Unchanged: the very order kept (a server database sent no order), and nothing may write to it.
    if (h.kind === 'postgres') {
      expect(await read(o.id)).toBe(before);
      expect(Object.isFrozen(before!.order.items[0])).toBe(true);
    }
    const saved = { found: before, dumps: { test: await other.admin.dump('test'), live: await other.admin.dump('live') } };

    const writes: Array<[string, () => Promise<unknown>]> = [
      ['a status change', () => writer.tx(async (tx) => {
        const locked = (await tx.orders.byId(o.id, { lock: true }))!;
        await tx.orders.update({ ...locked, status: 'accepted', updatedAt: T0 + 1, acceptedAt: T0 + 1 });
        await tx.orders.addHistory(o.id, entry('accepted', T0 + 1));
      })],
      ['an acknowledgement (the row alone)', async () => writer.orders.update({
        ...(await writer.orders.byId(o.id))!, ackStatus: 'acknowledged', externalId: 'ERP-1', acknowledgedAt: T0 + 2, ackIntegrationId: integrationId,
      })],
      ['a history entry alone', () => writer.orders.addHistory(o.id, entry('preparing', T0 + 3))],
      ['two writes in one unit of work', () => writer.tx(async (tx) => {
        const locked = (await tx.orders.byId(o.id, { lock: true }))!;
        await tx.orders.update({ ...locked, notes: 'primera', updatedAt: T0 + 4 });
        await tx.orders.update({ ...locked, notes: 'segunda', updatedAt: T0 + 5 });
      })],
    ];
    for (const [what, write] of writes) {
      await write();
      const after = await read(o.id);
      if (h.kind === 'postgres') expect(after, what).not.toBe(before);
      expect(after, what).toEqual(await expected(o.id));
      expect(after, what).not.toEqual(before);
      if (h.kind === 'postgres') expect(await read(o.id), what).toBe(after);
      before = after;
    }

    // Another order of the store written: this one's kept order holds.
    await writer.orders.update({ ...neighbour, status: 'rejected', statusReason: 'sin stock', updatedAt: T0 + 6 });
    if (h.kind === 'postgres') expect(await read(o.id)).toBe(before);
    expect((await read(neighbour.id))!.order.statusReason).toBe('sin stock');

    // Events' retention removes events only (never orders): the kept order holds.
    await writer.events.purgeBefore(T0 + 1_000_000);
    if (h.kind === 'postgres') expect(await read(o.id)).toBe(before);

    // A unit of work that rolls back leaves the order as it was; one not yet committed is not seen.
    await expect(writer.tx(async (tx) => {
      const locked = (await tx.orders.byId(o.id, { lock: true }))!;
      await tx.orders.update({ ...locked, status: 'cancelled', updatedAt: T0 + 7 });
      await tx.orders.addHistory(o.id, entry('cancelled', T0 + 7));
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(await read(o.id)).toEqual(before);
    if (h.kind === 'postgres') {
      expect(await read(o.id)).toBe(before);
      await writer.tx(async (tx) => {
        const locked = (await tx.orders.byId(o.id, { lock: true }))!;
        await tx.orders.update({ ...locked, status: 'ready', updatedAt: T0 + 8 });
        await tx.orders.addHistory(o.id, entry('ready', T0 + 8));
        expect(await read(o.id)).toBe(before);
      });
      const committed = await read(o.id);
      expect(committed).not.toBe(before);
      expect(committed!.order.status).toBe('ready');
      expect(committed).toEqual(await expected(o.id));
      before = committed;
    }

    // A reset removes the order (the same store and credential made again: no such order).
    await other.admin.reset();
    await writer.stores.insert({ id: storeId, slug: 'otra', name: 'Otra', switchOn: true, paymentMethods: ['cash'] as never, fulfillmentTypes: ['pickup'] }, T0);
    await writer.integrations.insert({ id: integrationId, storeId, system: 'erp-de-prueba', scopes: [...SCOPES], settings: integrationSettings.parse({}) }, T0);
    await writer.credentials.insert('svk_orders', integrationId, digest, T0);
    expect(await read(o.id)).toBeUndefined();
    // The same id written again after the reset (as a restore of another sandbox could): the new row, not the one kept before.
    await writer.tx(async (tx) => {
      await tx.orders.insert({ ...o, notes: 'otra vez' });
      await tx.orders.addHistory(o.id, entry('pending', T0));
    });
    const again = await read(o.id);
    expect(again!.order.notes).toBe('otra vez');
    expect(again).toEqual(await expected(o.id));
    // A restore brings back the order as it was saved, not the one kept since.
    await other.admin.restore(saved.dumps);
    const restored = await read(o.id);
    expect(restored).toEqual(saved.found);
    expect(restored).not.toEqual(again);
    if (h.kind === 'postgres') expect(await read(o.id)).toBe(restored);
  });
});
