import { ENVIRONMENTS, type Environment } from '../../../src/contract/store.js';
import { BundleError, type EnvironmentDump } from '../../bundle/format.js';
import { cellValue, isCell } from '../../bundle/scrub.js';
import type { PoolClient } from './connect.js';
import { bundleColumns } from './dump.js';
import { sqlState } from './errors.js';
import { MIGRATIONS } from './migrations/index.js';
import { DUMP_TABLES, ENV_TABLES, quote, type SchemaNames } from './schema.js';

// A bundle's dumps into both environments' schemas, all or nothing: checked first (environments,
// schema version, tables, columns, cells), then written in one transaction whose references are
// checked once every row is in. Anything refused rolls the whole transaction back: nothing changed.

const KNOWN = new Set(DUMP_TABLES.map((t) => t.name));

function checkFits(env: Environment, dump: EnvironmentDump | undefined, columns: Map<string, string[]>): asserts dump is EnvironmentDump {
  if (!dump || typeof dump !== 'object' || !dump.tables || typeof dump.tables !== 'object') throw new BundleError(`the bundle has no "${env}" environment`);
  if (dump.schema_version > MIGRATIONS.length) {
    throw new BundleError(`the bundle's ${env} database is newer (schema ${dump.schema_version} > ${MIGRATIONS.length}): upgrade merchant-kit`);
  }
  for (const [table, t] of Object.entries(dump.tables)) {
    if (!KNOWN.has(table)) throw new BundleError(`the bundle has a table this merchant-kit does not know: ${table}`);
    if (!t || !Array.isArray(t.columns)) throw new BundleError(`the bundle's ${table} table is malformed`);
    const here = new Set(columns.get(table) ?? []);
    const unknown = t.columns.filter((c) => !here.has(c));
    if (unknown.length) throw new BundleError(`the bundle's ${table} table has unknown columns: ${unknown.join(', ')}`);
    if (!Array.isArray(t.rows) || t.rows.some((r) => !Array.isArray(r) || r.length !== t.columns.length || !r.every(isCell))) {
      throw new BundleError(`the bundle's ${table} table is malformed`);
    }
  }
  const sequences = dump.sequences ?? {};
  if (typeof sequences !== 'object' || Object.values(sequences).some((n) => !Number.isSafeInteger(n))) {
    throw new BundleError(`the bundle's ${env} sequences are malformed`);
  }
}

/** Rows per INSERT: PostgreSQL takes at most 65535 parameters per statement. */
const MAX_PARAMETERS = 30_000;

async function insertRows(client: PoolClient, schema: string, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const per = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)));
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => `(${row.map((c) => `$${values.push(cellValue(c as never))}`).join(', ')})`);
    await client.query(`INSERT INTO ${quote(schema)}.${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${tuples.join(', ')}`, values);
  }
}

/** Every table of both environments emptied, their identities (insertion order) started again. */
export const truncateAll = (names: SchemaNames) =>
  `TRUNCATE ${ENVIRONMENTS.flatMap((env) => ENV_TABLES.map((t) => `${quote(names.env[env])}.${quote(t)}`)).join(', ')} RESTART IDENTITY`;

/** Replaces both environments with the dumps; throws a BundleError and changes nothing when one is refused. */
export async function loadDumps(client: PoolClient, names: SchemaNames, dumps: Record<Environment, EnvironmentDump>): Promise<void> {
  for (const env of ENVIRONMENTS) checkFits(env, dumps[env], await bundleColumns(client, names.env[env]));
  await client.query('BEGIN');
  let place = '';
  try {
    await client.query('SET CONSTRAINTS ALL DEFERRED');
    await client.query(truncateAll(names));
    for (const env of ENVIRONMENTS) {
      const schema = names.env[env];
      for (const [table, t] of Object.entries(dumps[env].tables)) {
        place = `${env}: the bundle's ${table} rows cannot be loaded`;
        if (t.rows.length) await insertRows(client, schema, table, t.columns, t.rows);
      }
      place = `${env}: the bundle's sequences cannot be loaded`;
      for (const [name, seq] of Object.entries(dumps[env].sequences ?? {})) {
        await client.query(`INSERT INTO ${quote(schema)}.sequences (name, seq) VALUES ($1, $2)`, [name, seq]);
      }
      // A request cut off when the state was saved never finished, as after a crash.
      await client.query(`DELETE FROM ${quote(schema)}.idempotency_keys WHERE state = 'processing'`);
    }
    place = '';
    await client.query('SET CONSTRAINTS ALL IMMEDIATE');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw refused(error, place, names);
  }
}

/** A database error while loading as the bundle's fault (a BundleError), or the error itself. */
function refused(error: unknown, place: string, names: SchemaNames): unknown {
  const state = sqlState(error);
  const e = error as { table?: string; schema?: string; detail?: string; message?: string };
  if (state === '23503') {
    const env = ENVIRONMENTS.find((x) => names.env[x] === e.schema) ?? 'test';
    const parent = /present in table "([^"]+)"/.exec(e.detail ?? '')?.[1] ?? 'other';
    return new BundleError(`${env}: the bundle's ${e.table} rows refer to ${parent} rows it does not have`);
  }
  // Class 22 (data exception) and 23 (integrity): what the bundle holds does not fit.
  if (place && state && (state.startsWith('22') || state.startsWith('23'))) return new BundleError(`${place}: ${e.message}`);
  return error;
}
