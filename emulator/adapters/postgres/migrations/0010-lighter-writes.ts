import type { PgMigration } from './index.js';

/**
 * The large JSON texts compressed with lz4 where the server was built with it (PostgreSQL 14 and
 * newer can be; the error otherwise is "feature not supported", and the texts stay with pglz). Only
 * how new values are stored changes: what a read gets back is the same text.
 */
const lz4 = (columns: readonly [table: string, column: string][]) => `
    DO $$
    BEGIN
      ${columns.map(([table, column]) => `ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4;`).join('\n      ')}
    EXCEPTION WHEN feature_not_supported THEN
      NULL;
    END
    $$;`;

/**
 * Small tables updated at (nearly) every write: autovacuum visits them when 50 rows changed, so
 * under load each was vacuumed and analysed every minute, and each visit made every pooled
 * connection plan again every prepared statement that reads the table (the admissions read most of
 * them). Their rows are read by key, so statistics change no plan; their updates are HOT (the row
 * versions are pruned on the page, no index entry is added), so a vacuum has little to do. They are
 * visited after many more changes instead (a few minutes under load, still bounded).
 */
const rarelyVisited = (tables: readonly string[]) =>
  tables.map((table) => `ALTER TABLE ${table} SET (autovacuum_vacuum_threshold = 20000, autovacuum_analyze_threshold = 1000000);`).join('\n    ');

// issue 25 (eighth step: PostgreSQL's side): less work per write for the server.
// - A delivery is updated at each step (pending, delivering, delivered or failed) and none of those
//   updates is HOT (its status is indexed): each wrote an entry in every index of the table. Every
//   query of the due index names `status = 'pending'` (webhook-claims.ts, webhooks.ts): as a partial
//   index on that status, a delivery that leaves it gets no entry there.
// - An order's `orders_ack (store_id, ack_status)` took an entry at every update of an order (its
//   `updated_at` is indexed too) and served no query of a generic plan. The orders waiting for their
//   ack (`waitingAck`: `ack_status <> 'acknowledged' ORDER BY number`) are read by a partial index on
//   the store and the number instead, which also gives their order; an acknowledged order's updates
//   write no entry in it.
// - Events' data, deliveries' bodies, stored answers and recorded calls are 1–3 KB texts that the
//   server compressed with pglz at each write and decompressed at each read: lz4 costs a fraction.
// - The feed's and the deliveries' counters, the stores' order numbers, the catalogs' versions, the
//   sandbox's row and the rate windows: autovacuum's visits made every connection plan again
//   (`rarelyVisited`).
export const lighterWrites: PgMigration = {
  version: 10,
  name: 'lighter-writes',
  env: `
    DROP INDEX webhook_deliveries_due;
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, seq) WHERE status = 'pending';
    DROP INDEX orders_ack;
    CREATE INDEX orders_waiting_ack ON orders(store_id, number) WHERE ack_status <> 'acknowledged';
    ${lz4([['events', 'data'], ['webhook_deliveries', 'body'], ['idempotency_keys', 'response']])}
    ${rarelyVisited(['sequences', 'stores', 'catalog_versions'])}
  `,
  shared: `
    ${lz4([['homologation_calls', 'call']])}
    ${rarelyVisited(['sandbox_state', 'rate_windows'])}
  `,
};
