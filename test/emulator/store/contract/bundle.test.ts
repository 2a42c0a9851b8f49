import { describe, expect, it } from 'vitest';
import { createClock } from '../../../../emulator/clock.js';
import { IdFactory } from '../../../../src/contract/ids.js';
import type { StoragePort } from '../../../../emulator/store/port.js';
import type { EnvironmentDump } from '../../../../emulator/bundle/format.js';
import { BundleError } from '../../../../emulator/bundle/format.js';
import { SqliteStorage } from '../../../../emulator/adapters/sqlite/index.js';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { createTestDatabase, PG_URL } from '../../../helpers/postgres.js';
import { describeAdapters } from './harness.js';
import { entrega, order, productWithOption, simpleOutbox, storeWithIntegration, T0, webhook } from './fixtures.js';

// Bundles: one format on both adapters. A dump restored and dumped again is the same, on one adapter
// and across them; a bundle that does not fit is refused whole, with nothing changed.

/** A row in every table of both environments. */
async function fill(storage: StoragePort, outbox: (o: ReturnType<typeof simpleOutbox> | null) => void): Promise<void> {
  outbox(simpleOutbox(() => T0));
  for (const envName of ['test', 'live'] as const) {
    const env = storage.env(envName);
    await env.tx(async (tx) => {
      const { storeId, integrationId } = await storeWithIntegration(tx);
      await tx.credentials.insert(`svk_${envName}`, integrationId, Buffer.from('00ff10', 'hex'), T0);
      await productWithOption(tx, storeId, integrationId);
      const key = { integrationId, snapshotId: 'snap' };
      await tx.snapshots.insert({ ...key, syncRunId: 'snc_1', status: 'open' as never, lastPart: 1, startedAt: T0 });
      await tx.snapshots.addItems(key, [{ kind: 'product' as never, externalId: 'P-1' }]);
      await tx.snapshots.savePart(key, 1, 'fp', '{"data":{"results":[]}}');
      const o = order(storeId, 1);
      await tx.orders.insert(o);
      await tx.orders.addHistory(o.id, { status: 'pending', at: T0, by: 'customer' as never, integrationId: null, reason: null });
      await tx.webhooks.save(webhook(storeId, integrationId));
      const [event] = await tx.emit('order.created', storeId, { order: { id: o.id, note: 'svs_' + 'a'.repeat(40) } } as never);
      const [delivery] = await tx.webhooks.list(integrationId, null, 1);
      await tx.webhooks.insertAttempt({ deliveryId: delivery!.id, attemptedAt: T0, manual: false, succeeded: true, responseStatus: 200, error: null, durationMs: 3 });
      expect(event).toBeDefined();
      await tx.entregas.insert(entrega(storeId, integrationId, { orderId: o.id }));
      await tx.stores.setToken(storeId, Buffer.from(`${envName}-token-digest`), T0);
      await tx.accessRequests.insertPending({ id: `acr_${envName}`, company: 'Compañía', contactEmail: 'a@example.com', system: 'ERP', claimSha256: Buffer.alloc(32, 1), sealKey: Buffer.alloc(32, 2) }, 10, T0);
      await tx.accessRequests.approve(`acr_${envName}`, { storeId, integrationId, sealed: Buffer.from('sealed') }, T0);
    });
    const claims = storage.coordination.idempotency;
    await claims.claim(envName, 'int_1', 'done-key', 'fp', T0);
    await claims.finish(envName, 'int_1', 'done-key', { status: 200, body: { ok: true }, headers: {} });
    await claims.claim(envName, 'int_1', 'running-key', 'fp', T0);
  }
  outbox(null);
}

const dumps = async (storage: StoragePort) => ({ test: await storage.admin.dump('test'), live: await storage.admin.dump('live') });

describeAdapters('bundles', (h) => {
  it('dumps every table, and a restore of the dump dumps the same', async () => {
    await fill(h.storage, (o) => (h.outbox = o));
    const before = await dumps(h.storage);
    for (const [name, t] of Object.entries(before.test.tables)) expect(t.rows.length, name).toBeGreaterThan(0);
    expect(before.test.schema_version).toBe(h.storage.admin.schemaVersion);
    expect(before.test.sequences).toEqual({ events: 1, webhook_deliveries: 1 });
    // Secrets never reach a bundle.
    expect(JSON.stringify(before)).not.toMatch(/whsec_|svs_a/);
    expect(before.test.tables.credentials!.rows[0]).toContainEqual({ $hex: '00ff10' });
    await h.storage.admin.restore(before);
    const after = await dumps(h.storage);
    // The cut-off request's claim is dropped by the restore; everything else is the same.
    const keys = before.test.tables.idempotency_keys!;
    const state = keys.columns.indexOf('state');
    expect(after.test.tables.idempotency_keys!.rows).toEqual(keys.rows.filter((r) => r[state] !== 'processing'));
    for (const d of [before.test, before.live]) d.tables.idempotency_keys!.rows = d.tables.idempotency_keys!.rows.filter((r) => r[state] !== 'processing');
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
  });

  it('refuses a bundle that does not fit, whole, and changes nothing', async () => {
    await fill(h.storage, (o) => (h.outbox = o));
    const good = await dumps(h.storage);
    const variants: [string, (d: Record<'test' | 'live', EnvironmentDump>) => void, RegExp][] = [
      ['unknown table', (d) => (d.live.tables.nope = { columns: ['a'], rows: [] }), /does not know: nope/],
      ['unknown column', (d) => d.test.tables.stores!.columns.push('colour'), /unknown columns: colour/],
      ['newer schema', (d) => (d.live.schema_version = 99), /newer/],
      ['malformed cell', (d) => (d.test.tables.orders!.rows[0]![0] = { nested: true } as never), /malformed/],
      ['a value that is no integer', (d) => (d.test.tables.products!.rows[0]![d.test.tables.products!.columns.indexOf('price')] = 'caro'), /products rows cannot be loaded/],
      ['a broken reference', (d) => {
        const t = d.live.tables.products!;
        t.rows[0]![t.columns.indexOf('category_id')] = 'cat_missing';
      }, /products rows refer to categories rows/],
      ['a missing environment', (d) => delete (d as Partial<typeof d>).test, /no "test" environment/],
    ];
    for (const [what, spoil, message] of variants) {
      const bad = structuredClone(good);
      spoil(bad);
      const error = await h.storage.admin.restore(bad).then(() => null, (e: unknown) => e);
      expect(error, what).toBeInstanceOf(BundleError);
      expect((error as Error).message, what).toMatch(message);
      expect(JSON.stringify(await dumps(h.storage)), what).toBe(JSON.stringify(good));
    }
  });
});

describe.skipIf(!PG_URL)('bundles across adapters', () => {
  it('restores a SQLite dump on PostgreSQL and back, dumping the same bytes each time', async () => {
    const clock = createClock('manual', () => T0);
    let outbox: ReturnType<typeof simpleOutbox> | null = null;
    const context = { clock: () => clock, ids: () => new IdFactory(() => clock.now()), outbox: () => outbox };
    const database = await createTestDatabase();
    const sqlite = new SqliteStorage({ dataDir: null }, context);
    const postgres = await PostgresStorage.open(database.url, context);
    const again = new SqliteStorage({ dataDir: null }, context);
    try {
      await fill(sqlite, (o) => (outbox = o));
      const original = JSON.stringify(await dumps(sqlite));
      await postgres.admin.restore(JSON.parse(original));
      const fromPostgres = JSON.stringify(await dumps(postgres));
      const dropped = JSON.parse(original);
      for (const env of ['test', 'live']) {
        const t = dropped[env].tables.idempotency_keys;
        t.rows = t.rows.filter((r: unknown[]) => r[t.columns.indexOf('state')] !== 'processing');
      }
      expect(fromPostgres).toBe(JSON.stringify(dropped));
      await again.admin.restore(JSON.parse(fromPostgres));
      expect(JSON.stringify(await dumps(again))).toBe(fromPostgres);
      // And the restored sandbox carries on where the bundle stopped: the next position follows.
      const env = postgres.env('test');
      const [store] = await env.stores.all();
      const [next] = await env.tx((tx) => tx.emit('order.created', store!.id, { order: { id: 'ord_x' } } as never));
      expect(next!.seq).toBe(2);
    } finally {
      await sqlite.close();
      await again.close();
      await postgres.close();
      await database.drop();
    }
  });
});
