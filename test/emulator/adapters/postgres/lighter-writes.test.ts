import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { migrate } from '../../../../emulator/adapters/postgres/migrate.js';
import { MIGRATIONS } from '../../../../emulator/adapters/postgres/migrations/index.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';
import { order, standaloneContext, storeWithIntegration, T0, webhook } from '../../store/contract/fixtures.js';

// issue 25, eighth step: migration 10 (lighter-writes) replaces the due deliveries' index and the
// orders' ack index by partial ones, stores the large JSON texts with lz4 where the server can, and
// has autovacuum visit the small hot tables less often.
// A database at version 9, with rows in it, migrates; what the indexes serve answers as before.

const context = standaloneContext();

describe.skipIf(!PG_URL)('migration 10 (lighter writes) on a database at version 9', () => {
  const db = useTestClient();

  it('migrates, with partial indexes for the due deliveries and the orders waiting for their ack, and lz4 where the server has it', async () => {
    const names = schemaNames();
    // Rows written at version 9: two orders (one acknowledged), a due delivery and a delivered one.
    let storage = await PostgresStorage.open(db.database().url, context);
    const env = storage.env('test');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    const waiting = order(a.storeId, 2);
    await env.orders.insert(order(a.storeId, 1, { ackStatus: 'acknowledged' }));
    await env.orders.insert(waiting);
    await storage.close();
    // The storage migrated the new database to the latest version: take it back to version 9's
    // indexes, compression, storage and version (the DDL of migrations 3 and 4; migration 11 dropped
    // `orders_updated` and set the orders' fillfactor), its rows kept.
    await db.client().query(`SET search_path TO ${names.env.test}`);
    const { rows: atLatest } = await db.client().query("SELECT value FROM merchant_kit_shared.meta WHERE key = 'schema_version'");
    expect(atLatest[0].value).toBe(String(MIGRATIONS.length));
    for (const env of Object.values(names.env)) {
      await db.client().query(`DROP INDEX ${env}.webhook_deliveries_due; CREATE INDEX webhook_deliveries_due ON ${env}.webhook_deliveries(status, next_attempt_at, seq);
        DROP INDEX ${env}.orders_waiting_ack; CREATE INDEX orders_ack ON ${env}.orders(store_id, ack_status);
        CREATE INDEX orders_updated ON ${env}.orders(store_id, updated_at); ALTER TABLE ${env}.orders RESET (fillfactor);
        ALTER TABLE ${env}.events ALTER COLUMN data SET COMPRESSION default; ALTER TABLE ${env}.webhook_deliveries ALTER COLUMN body SET COMPRESSION default;
        ALTER TABLE ${env}.idempotency_keys ALTER COLUMN response SET COMPRESSION default;
        ALTER TABLE ${env}.sequences RESET (autovacuum_vacuum_threshold, autovacuum_analyze_threshold);
        ALTER TABLE ${env}.stores RESET (autovacuum_vacuum_threshold, autovacuum_analyze_threshold);
        ALTER TABLE ${env}.catalog_versions RESET (autovacuum_vacuum_threshold, autovacuum_analyze_threshold)`);
    }
    await db.client().query(`ALTER TABLE ${names.shared}.homologation_calls ALTER COLUMN call SET COMPRESSION default;
      ALTER TABLE ${names.shared}.sandbox_state RESET (autovacuum_vacuum_threshold, autovacuum_analyze_threshold);
      ALTER TABLE ${names.shared}.rate_windows RESET (autovacuum_vacuum_threshold, autovacuum_analyze_threshold)`);
    await db.client().query("UPDATE merchant_kit_shared.meta SET value = 9 WHERE key = 'schema_version'");

    expect(Number(await migrate(db.client(), names))).toBe(9);
    const indexes = async (table: string) => Object.fromEntries((await db.client().query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2', [names.env.test, table])).rows.map((r) => [r.indexname, r.indexdef]));
    const deliveries = await indexes('webhook_deliveries');
    expect(deliveries.webhook_deliveries_due).toMatch(/\(next_attempt_at, seq\) WHERE \(status = 'pending'::text\)$/);
    const orders = await indexes('orders');
    expect(orders.orders_ack).toBeUndefined();
    expect(orders.orders_waiting_ack).toMatch(/\(store_id, number\) WHERE \(ack_status <> 'acknowledged'::text\)$/);

    // lz4 where this server was built with it; else the columns keep the default (pglz).
    const lz4 = await db.client().query('CREATE TEMP TABLE lz4_probe (t text COMPRESSION lz4)').then(() => true, () => false);
    const { rows: compression } = await db.client().query<{ table: string; attcompression: string }>(
      `SELECT c.relname AS table, a.attcompression FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE (n.nspname = $1 AND (c.relname, a.attname) IN (('events', 'data'), ('webhook_deliveries', 'body'), ('idempotency_keys', 'response')))
          OR (n.nspname = $2 AND c.relname = 'homologation_calls' AND a.attname = 'call') ORDER BY 1`, [names.env.test, names.shared]);
    expect(compression).toEqual(['events', 'homologation_calls', 'idempotency_keys', 'webhook_deliveries'].map((table) => ({ table, attcompression: lz4 ? 'l' : '' })));

    // Autovacuum visits the small tables every row of which changes at each write after many more changes.
    const { rows: options } = await db.client().query<{ table: string; reloptions: string[] }>(
      `SELECT n.nspname || '.' || c.relname AS table, c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'r' AND c.reloptions IS NOT NULL AND n.nspname IN ($1, $2) ORDER BY 1`, [names.env.test, names.shared]);
    const visits = ['autovacuum_vacuum_threshold=20000', 'autovacuum_analyze_threshold=1000000'];
    expect(options.filter((o) => !o.table.endsWith('.orders'))).toEqual([
      `${names.shared}.rate_windows`, `${names.shared}.sandbox_state`,
      `${names.env.test}.catalog_versions`, `${names.env.test}.sequences`, `${names.env.test}.stores`,
    ].map((table) => ({ table, reloptions: visits })));

    // What the indexes serve: the orders waiting for their ack, in number order; the next due delivery.
    storage = await PostgresStorage.open(db.database().url, context);
    try {
      const again = storage.env('test');
      expect((await again.orders.notAcknowledged(a.storeId)).map((o) => o.id)).toEqual([waiting.id]);
      await again.orders.insert(order(a.storeId, 3));
      expect((await again.orders.notAcknowledged(a.storeId)).map((o) => o.number)).toEqual([2, 3]);
      expect(await again.webhooks.nextDueAt()).toBeNull();
      await again.webhooks.insertDelivery({ id: 'dlv_1', integrationId: a.integrationId, eventId: 'evt_1', eventType: 'order.created', body: '{}' }, T0 + 5);
      expect(await again.webhooks.nextDueAt()).toBe(T0 + 5);
    } finally {
      await storage.close();
    }
  });
});
