import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Db } from '../store/sqlite/open.js';
import { MIGRATIONS } from '../store/sqlite/migrations/index.js';
import { issueCredential } from '../stores/credentials.js';
import { newSigningSecret } from '../webhooks/config.js';
import { webhookService } from '../webhooks/service.js';
import { seedsAfterRestore } from '../stores/seed.js';
import { tableNames } from '../store/sqlite/dump.js';
import { BundleError, type Bundle, type Cell, type EnvironmentDump } from './format.js';

/** What a restore hands out once: a fresh credential per restored integration, and new signing secrets. */
export interface RestoredIntegration {
  environment: 'test' | 'live';
  store_id: string;
  integration_id: string;
  credential: string;
  /** The webhook's new signing secret, when the integration has a webhook. */
  webhook_signing_secret?: string;
}

function columnsOf(db: Db, table: string): Set<string> {
  return new Set(db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table.replace(/'/g, "''")}')`).all().map((c) => c.name));
}

/**
 * Every table and column of the bundle must exist here, and its schema must not be newer; checked
 * for both environments before anything is written.
 */
function checkFits(emulator: Emulator, bundle: Bundle): void {
  for (const env of Object.values(emulator.envs)) {
    const dump = bundle.payload.environments[env.name];
    if (!dump || typeof dump !== 'object' || !dump.tables) throw new BundleError(`the bundle has no "${env.name}" environment`);
    if (dump.schema_version > MIGRATIONS.length) {
      throw new BundleError(`the bundle's ${env.name} database is newer (schema ${dump.schema_version} > ${MIGRATIONS.length}): upgrade merchant-kit`);
    }
    const here = new Set(tableNames(env.db));
    for (const [table, t] of Object.entries(dump.tables)) {
      if (!here.has(table)) throw new BundleError(`the bundle has a table this merchant-kit does not know: ${table}`);
      const columns = columnsOf(env.db, table);
      const unknown = t.columns.filter((c) => !columns.has(c));
      if (unknown.length) throw new BundleError(`the bundle's ${table} table has unknown columns: ${unknown.join(', ')}`);
      if (!Array.isArray(t.rows) || t.rows.some((r) => !Array.isArray(r) || r.length !== t.columns.length || !r.every(isCell))) {
        throw new BundleError(`the bundle's ${table} table is malformed`);
      }
    }
  }
}

const isCell = (c: unknown): c is Cell =>
  c === null || typeof c === 'string' || typeof c === 'number' ||
  (typeof c === 'object' && typeof (c as { $hex?: unknown }).$hex === 'string' && /^(?:[0-9a-f]{2})*$/i.test((c as { $hex: string }).$hex));

const value = (c: Cell): unknown => (c !== null && typeof c === 'object' ? Buffer.from(c.$hex, 'hex') : c);

/** Deletes every table of `db` and writes the bundle's rows and sequences (inside the caller's transaction). */
function replaceTables(db: Db, dump: EnvironmentDump): void {
  for (const name of tableNames(db)) db.exec(`DELETE FROM "${name}"`);
  db.exec('DELETE FROM sqlite_sequence');
  for (const [table, t] of Object.entries(dump.tables)) {
    if (!t.rows.length) continue;
    const insert = db.prepare(`INSERT INTO "${table}" (${t.columns.map((c) => `"${c}"`).join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`);
    try {
      for (const row of t.rows) insert.run(...row.map(value));
    } catch (error) {
      throw new BundleError(`the bundle's ${table} rows cannot be loaded: ${(error as Error).message}`);
    }
  }
  const setSeq = db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)');
  for (const [name, seq] of Object.entries(dump.sequences ?? {})) setSeq.run(name, seq);
}

const TRIAL = Symbol('trial load rolled back');

/**
 * Loads both environments' rows once and rolls them back, so that a row the schema refuses (a
 * duplicate key, a wrong type in a STRICT table) is found before anything is reset or replaced:
 * the checksum proves only that the file is intact, not that whoever wrote it wrote valid rows.
 */
function trialLoad(emulator: Emulator, bundle: Bundle): void {
  for (const env of Object.values(emulator.envs)) {
    withoutForeignKeys(env.db, () => {
      try {
        env.db.transaction(() => {
          replaceTables(env.db, bundle.payload.environments[env.name]!);
          checkReferences(env.db);
          throw TRIAL;
        })();
      } catch (error) {
        if (error !== TRIAL) throw error instanceof BundleError ? new BundleError(`${env.name}: ${error.message}`) : error;
      }
    });
  }
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

/** Replaces one environment's tables with the bundle's, in one transaction. */
function load(env: EnvContext, dump: EnvironmentDump, now: number): RestoredIntegration[] {
  const db = env.db;
  return withoutForeignKeys(db, () =>
    db.transaction(() => {
      replaceTables(db, dump);
      // A request cut off when the state was saved never finished (as after a crash).
      db.prepare("DELETE FROM idempotency_keys WHERE state = 'processing'").run();
      env.webhooks.recoverInterrupted(now);
      return handOut(env, now);
    })(),
  );
}

/** New credentials (the bundle's key ids stay, with their digests) and new webhook signing secrets. */
function handOut(env: EnvContext, now: number): RestoredIntegration[] {
  return env.stores.all().flatMap((store) =>
    env.integrations.byStore(store.id).map((integration) => {
      const issued = issueCredential(env.name);
      env.credentials.insert(issued.keyId, integration.id, issued.digest, now);
      const restored: RestoredIntegration = { environment: env.name, store_id: store.id, integration_id: integration.id, credential: issued.full };
      const webhook = env.webhooks.get(integration.id);
      if (webhook) {
        const secret = newSigningSecret();
        env.webhooks.save({ ...webhook, secret, previousSecret: null, previousExpiresAt: null });
        restored.webhook_signing_secret = secret;
      }
      return restored;
    }),
  );
}

/**
 * The state of a checked bundle written into an emulator that serves nothing yet (a restore's
 * staging folder, or an emulator before it listens): both environments' tables, the clock (moved
 * forward to the bundle's time when that is later; it never goes back) and the demo stores a reset
 * or a restart brings back (the bundle's own, with the credentials handed out here).
 */
export function restoreState(emulator: Emulator, bundle: Bundle): RestoredIntegration[] {
  checkFits(emulator, bundle);
  trialLoad(emulator, bundle);
  emulator.reset();
  const behind = bundle.payload.clock.now_ms - emulator.clock.now();
  const now = Math.max(emulator.clock.now(), bundle.payload.clock.now_ms);
  const restored = Object.values(emulator.envs).flatMap((env) => load(env, bundle.payload.environments[env.name]!, now));
  if (behind > 0) emulator.clock.advance(behind);
  const seeds = seedsAfterRestore(emulator.envs, restored);
  emulator.adoptSeeds(seeds);
  // A demo store made for an environment the bundle left empty is handed out like the restored ones.
  for (const seed of seeds) {
    if (!restored.some((r) => r.integration_id === seed.integrationId)) {
      restored.push({ environment: seed.environment, store_id: seed.storeId, integration_id: seed.integrationId, credential: seed.credential });
    }
  }
  return restored;
}

/**
 * Replaces a running emulator's whole state with a checked bundle (see restoreState); due webhook
 * deliveries resume. Faults, chaos and rate windows start empty.
 */
export function restoreBundle(emulator: Emulator, bundle: Bundle): RestoredIntegration[] {
  const restored = restoreState(emulator, bundle);
  webhookService(emulator).kick();
  return restored;
}
