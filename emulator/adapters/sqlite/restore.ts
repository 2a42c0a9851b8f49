import type { Environment } from '../../../src/contract/store.js';
import { BundleError, type EnvironmentDump } from '../../bundle/format.js';
import { cellValue, isCell } from '../../bundle/scrub.js';
import { MIGRATIONS } from './migrations/index.js';
import { tableNames } from './dump.js';
import type { Db } from './open.js';

// A bundle's dumps into the SQLite databases: checked (tables, columns, cells, schema version), loaded
// once and rolled back (a row the schema refuses, a broken reference), then loaded for real.

function columnsOf(db: Db, table: string): Set<string> {
  return new Set(db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table.replace(/'/g, "''")}')`).all().map((c) => c.name));
}

/** Every table and column of the dump must exist here, and its schema must not be newer. */
function checkFits(name: Environment, db: Db, dump: EnvironmentDump | undefined): asserts dump is EnvironmentDump {
  if (!dump || typeof dump !== 'object' || !dump.tables) throw new BundleError(`the bundle has no "${name}" environment`);
  if (dump.schema_version > MIGRATIONS.length) {
    throw new BundleError(`the bundle's ${name} database is newer (schema ${dump.schema_version} > ${MIGRATIONS.length}): upgrade merchant-kit`);
  }
  const here = new Set(tableNames(db));
  for (const [table, t] of Object.entries(dump.tables)) {
    if (!here.has(table)) throw new BundleError(`the bundle has a table this merchant-kit does not know: ${table}`);
    const columns = columnsOf(db, table);
    const unknown = t.columns.filter((c) => !columns.has(c));
    if (unknown.length) throw new BundleError(`the bundle's ${table} table has unknown columns: ${unknown.join(', ')}`);
    if (!Array.isArray(t.rows) || t.rows.some((r) => !Array.isArray(r) || r.length !== t.columns.length || !r.every(isCell))) {
      throw new BundleError(`the bundle's ${table} table is malformed`);
    }
  }
}

/** Deletes every table of `db` and writes the dump's rows and sequences (inside the caller's transaction). */
function replaceTables(db: Db, dump: EnvironmentDump): void {
  for (const name of tableNames(db)) db.exec(`DELETE FROM "${name}"`);
  db.exec('DELETE FROM sqlite_sequence');
  for (const [table, t] of Object.entries(dump.tables)) {
    if (!t.rows.length) continue;
    const insert = db.prepare(`INSERT INTO "${table}" (${t.columns.map((c) => `"${c}"`).join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`);
    try {
      for (const row of t.rows) insert.run(...row.map(cellValue));
    } catch (error) {
      throw new BundleError(`the bundle's ${table} rows cannot be loaded: ${(error as Error).message}`);
    }
  }
  const setSeq = db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)');
  for (const [name, seq] of Object.entries(dump.sequences ?? {})) setSeq.run(name, seq);
}

/**
 * Rows are loaded with foreign keys off (any table order works); every reference must hold once
 * they are all in: the catalog's pages, for one, count on each product's category being there.
 */
function checkReferences(db: Db): void {
  const broken = db.prepare<[], { table: string; parent: string }>('PRAGMA foreign_key_check').all();
  if (broken.length === 0) return;
  const first = broken[0]!;
  throw new BundleError(`the bundle's ${first.table} rows refer to ${first.parent} rows it does not have (${broken.length} broken reference${broken.length === 1 ? '' : 's'})`);
}

function withoutForeignKeys<T>(db: Db, fn: () => T): T {
  db.pragma('foreign_keys = OFF');
  try {
    return fn();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

const TRIAL = Symbol('trial load rolled back');

/**
 * Replaces both databases' tables with the dumps'. Everything is checked and loaded once in rolled-back
 * transactions before anything is replaced: the checksum proves only that a file is intact, not
 * that whoever wrote it wrote valid rows. A request cut off when the state was saved never finished,
 * as after a crash: its idempotency claim is dropped.
 */
export function loadDumps(dbs: Record<Environment, Db>, dumps: Record<Environment, EnvironmentDump>): void {
  const envs = Object.entries(dbs) as [Environment, Db][];
  for (const [name, db] of envs) checkFits(name, db, dumps[name]);
  for (const [name, db] of envs) {
    withoutForeignKeys(db, () => {
      try {
        db.transaction(() => {
          replaceTables(db, dumps[name]);
          checkReferences(db);
          throw TRIAL;
        })();
      } catch (error) {
        if (error !== TRIAL) throw error instanceof BundleError ? new BundleError(`${name}: ${error.message}`) : error;
      }
    });
  }
  for (const [name, db] of envs) {
    withoutForeignKeys(db, () =>
      db.transaction(() => {
        replaceTables(db, dumps[name]);
        db.prepare("DELETE FROM idempotency_keys WHERE state = 'processing'").run();
      })(),
    );
  }
}
