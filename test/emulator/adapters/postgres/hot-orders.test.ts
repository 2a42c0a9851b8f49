import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { migrate } from '../../../../emulator/adapters/postgres/migrate.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';
import { waitFor } from '../../../helpers/wait.js';
import { order, standaloneContext, storeWithIntegration, T0 } from '../../store/contract/fixtures.js';

// issue 25, ninth step: migration 11 (hot-orders) drops the orders' index on `updated_at`, a column
// every update of an order moves, and leaves room on the orders' new pages, so that PostgreSQL
// updates an order's status in place (a HOT update: no new index entry). A database at version 10,
// with rows in it, migrates; the orders' list by update time answers as before.

const context = standaloneContext();

describe.skipIf(!PG_URL)('migration 11 (hot orders) on a database at version 10', () => {
  const db = useTestClient();

  it('drops orders_updated, fills new pages of orders to 80 %, and a status change is then a HOT update', async () => {
    const names = schemaNames();
    let storage = await PostgresStorage.open(db.database().url, context);
    const a = await storeWithIntegration(storage.env('test'));
    await storage.env('test').orders.insert(order(a.storeId, 1, { updatedAt: T0 }));
    await storage.close();
    // The storage migrated the new database to the latest version: take it back to version 10's
    // index and storage of orders (the DDL of migration 3), its rows kept.
    for (const env of Object.values(names.env)) {
      await db.client().query(`CREATE INDEX orders_updated ON ${env}.orders(store_id, updated_at); ALTER TABLE ${env}.orders RESET (fillfactor)`);
    }
    await db.client().query("UPDATE merchant_kit_shared.meta SET value = 10 WHERE key = 'schema_version'");

    expect(Number(await migrate(db.client(), names))).toBe(10);
    const { rows: indexes } = await db.client().query<{ indexname: string }>(
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY 1', [names.env.test, 'orders']);
    expect(indexes.map((i) => i.indexname)).toEqual(['orders_external', 'orders_number', 'orders_pkey', 'orders_waiting_ack']);
    const { rows: [options] } = await db.client().query<{ reloptions: string[] }>(
      `SELECT c.reloptions FROM pg_class c WHERE c.oid = $1::regclass`, [`${names.env.test}.orders`]);
    expect(options!.reloptions).toEqual(['fillfactor=80']);

    const counts = async () => (await db.client().query<{ upd: string; hot: string }>(
      'SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relid = $1::regclass', [`${names.env.test}.orders`])).rows[0]!;
    storage = await PostgresStorage.open(db.database().url, context);
    const before = await counts();
    try {
      const env = storage.env('test');
      const o = order(a.storeId, 2, { updatedAt: T0 + 10 });
      await env.orders.insert(o);
      // Three status changes (no index's column or condition moves: HOT), then the acknowledgement
      // (`ack_status` is the waiting index's condition: an entry there and in every index).
      let current = o;
      for (const [i, status] of (['accepted', 'preparing', 'ready'] as const).entries()) {
        current = { ...current, status, updatedAt: T0 + 20 + i };
        await env.orders.update(current, { status, at: T0 + 20 + i, by: 'integration', integrationId: a.integrationId, reason: null });
      }
      await env.orders.update({ ...current, ackStatus: 'acknowledged', externalId: 'ERP-2', acknowledgedAt: T0 + 30, ackIntegrationId: a.integrationId, updatedAt: T0 + 30 });
      // The list by update time (GET /orders?updated_since=) reads by the number and filters.
      const since = await env.orders.list({ storeId: a.storeId, afterNumber: 0, limit: 10, statuses: null, ackStatus: null, createdSince: null, updatedSince: T0 + 5 });
      expect(since.map((x) => [x.number, x.status, x.ackStatus])).toEqual([[2, 'ready', 'acknowledged']]);
    } finally {
      // A server process reports its table counters as it ends (else up to seconds later).
      await storage.close();
    }
    const after = await waitFor(async () => {
      const now = await counts();
      return Number(now.upd) - Number(before.upd) >= 4 && now;
    }, () => 'the orders table\'s update counter to count the four updates');
    expect({ updates: Number(after.upd) - Number(before.upd), hot: Number(after.hot) - Number(before.hot) }).toEqual({ updates: 4, hot: 3 });
  });
});
