import type { Environment } from '../../../src/contract/store.js';

/** Where one sandbox lives in the database: a schema per environment, one shared, one channel. */
export interface SchemaNames {
  prefix: string;
  env: Record<Environment, string>;
  shared: string;
  /** The LISTEN/NOTIFY channel of the change feed. */
  channel: string;
}

export const DEFAULT_PREFIX = 'merchant_kit';

/** Several sandboxes may share a database under different prefixes (`merchant_kit_live`, `…_test`, `…_shared`). */
export function schemaNames(prefix = DEFAULT_PREFIX): SchemaNames {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw new Error(`the schema prefix "${prefix}" must be lower-case letters, digits and underscores (at most 41, not starting with a digit)`);
  }
  return { prefix, env: { live: `${prefix}_live`, test: `${prefix}_test` }, shared: `${prefix}_shared`, channel: `${prefix}_changes` };
}

/**
 * The tables a bundle holds, in the order the SQLite adapter creates them (a dump lists them so),
 * each with the order SQLite's `SELECT *` reads its rows in: insertion order (the rowid; the feed
 * and delivery positions are theirs) or, for SQLite's WITHOUT ROWID tables, the primary key.
 */
export const DUMP_TABLES: readonly { name: string; orderBy: string }[] = [
  { name: 'stores', orderBy: 'rowid' },
  { name: 'integrations', orderBy: 'rowid' },
  { name: 'credentials', orderBy: 'rowid' },
  { name: 'idempotency_keys', orderBy: 'rowid' },
  { name: 'events', orderBy: 'seq' },
  { name: 'categories', orderBy: 'rowid' },
  { name: 'products', orderBy: 'rowid' },
  { name: 'option_groups', orderBy: 'rowid' },
  { name: 'options', orderBy: 'rowid' },
  { name: 'snapshots', orderBy: 'rowid' },
  { name: 'snapshot_items', orderBy: 'integration_id, snapshot_id, kind, external_id' },
  { name: 'snapshot_parts', orderBy: 'rowid' },
  { name: 'orders', orderBy: 'rowid' },
  { name: 'order_status_history', orderBy: 'order_id, seq' },
  { name: 'webhooks', orderBy: 'rowid' },
  { name: 'webhook_deliveries', orderBy: 'seq' },
  { name: 'webhook_attempts', orderBy: 'delivery_id, number' },
  { name: 'entregas', orderBy: 'rowid' },
  { name: 'store_tokens', orderBy: 'rowid' },
  { name: 'access_requests', orderBy: 'rowid' },
];

/** Columns only this adapter has (insertion order, claims and leases): never in a bundle. */
const RUNTIME_COLUMNS = new Set(['rowid', 'owner', 'lease_until', 'claim_token', 'claim_owner', 'claim_until', 'claim_manual', 'claim_from', 'claimed_at']);

export function isRuntimeColumn(column: string): boolean {
  return RUNTIME_COLUMNS.has(column);
}

/**
 * Every environment table, for reset and restore: the bundle's, the positions, and the stores' catalog
 * versions (emptied with the catalog: TRUNCATE runs no trigger; a restore's rows set them again).
 */
export const ENV_TABLES: readonly string[] = [...DUMP_TABLES.map((t) => t.name), 'sequences', 'catalog_versions'];

export const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
