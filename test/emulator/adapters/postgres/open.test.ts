import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresStorage, isDriverUnavailable, StorageUnavailableError } from '../../../../emulator/adapters/postgres/index.js';
import { serverProblem, displayUrl } from '../../../../emulator/adapters/postgres/connect.js';
import { MIGRATIONS as PG_MIGRATIONS } from '../../../../emulator/adapters/postgres/migrations/index.js';
import { ENV_TABLES } from '../../../../emulator/adapters/postgres/schema.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../../../emulator/adapters/sqlite/migrations/index.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';
import { standaloneContext, storeWithIntegration } from '../../store/contract/fixtures.js';

// Opening the server database, and what goes wrong with it: one clear line for a database that
// cannot be reached or used, an error the HTTP layer maps to 503 while it is gone, and carrying on
// once it is back.

const context = standaloneContext();

describe('the server adapter without a server', () => {
  it('follows the embedded adapter\'s migrations step for step (a bundle\'s schema_version means the same)', () => {
    expect(PG_MIGRATIONS.map((m) => [m.version, m.name])).toEqual(SQLITE_MIGRATIONS.map((m) => [m.version, m.name]));
  });

  it('refuses PostgreSQL older than 14 and a database that is not UTF8', () => {
    expect(serverProblem(130011, 'UTF8')).toBe('PostgreSQL 13 is too old: merchant-kit needs PostgreSQL 14 or newer');
    expect(serverProblem(140000, 'UTF8')).toBeNull();
    expect(serverProblem(170002, 'LATIN1')).toMatch(/encoding is LATIN1: merchant-kit needs a UTF8 database/);
  });

  it('shows a database URL without its password', () => {
    expect(displayUrl('postgres://kit:s3cret@db.example:5432/sandbox')).toBe('postgres://kit@db.example:5432/sandbox');
  });

  it('tells an unreachable database in one line, naming it without its password', async () => {
    const error = await PostgresStorage.open('postgres://kit:s3cret@127.0.0.1:1/sandbox', context, { connectTimeoutMs: 2000 }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toBe('cannot open the PostgreSQL database postgres://kit@127.0.0.1:1/sandbox: connection refused');
    expect((error as Error).stack).toBe(`StorageOpenError: ${message}`);
    expect(message).not.toContain('s3cret');
  });

  it('knows a lost connection from other errors', () => {
    expect(isDriverUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDriverUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDriverUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDriverUnavailable(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    // A new session refused: the database out of service, dropped, or the role's password changed.
    expect(isDriverUnavailable(Object.assign(new Error('database "sandbox" is not currently accepting connections'), { code: '55000' }))).toBe(true);
    expect(isDriverUnavailable(Object.assign(new Error('database "sandbox" does not exist'), { code: '3D000' }))).toBe(true);
    expect(isDriverUnavailable(Object.assign(new Error('password authentication failed for user "kit"'), { code: '28P01' }))).toBe(true);
    expect(isDriverUnavailable(Object.assign(new Error('cannot drop the currently open database'), { code: '55000' }))).toBe(false);
    expect(isDriverUnavailable(new StorageUnavailableError('connection refused'))).toBe(true);
    expect(isDriverUnavailable(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBe(false);
    expect(isDriverUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDriverUnavailable(null)).toBe(false);
  });
});

describe.skipIf(!PG_URL)('the server adapter on a server', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  it('keeps each environment in its own schema and coordination in a shared one', async () => {
    const storage = await PostgresStorage.open(database.url, context);
    await storeWithIntegration(storage.env('live'));
    await storage.close();
    const counts = await admin((c) => c.query<{ schema: string; n: number }>(
      `SELECT table_schema AS schema, count(*)::int AS n FROM information_schema.tables
       WHERE table_schema LIKE 'merchant_kit_%' GROUP BY table_schema ORDER BY table_schema`,
    ));
    expect(counts.rows).toEqual([
      { schema: 'merchant_kit_live', n: ENV_TABLES.length },
      // The coordination's 9 tables, and the certificates' ledger (signing_keys, certificates).
      { schema: 'merchant_kit_shared', n: 11 },
      { schema: 'merchant_kit_test', n: ENV_TABLES.length },
    ]);
    const stores = await admin((c) => c.query('SELECT (SELECT count(*)::int FROM merchant_kit_live.stores) AS live, (SELECT count(*)::int FROM merchant_kit_test.stores) AS test'));
    expect(stores.rows[0]).toEqual({ live: 1, test: 0 });
  });

  it('refuses a database migrated by a newer merchant-kit, and leaves it as it was', async () => {
    await admin((c) => c.query("CREATE SCHEMA newer_shared; CREATE TABLE newer_shared.meta (key text PRIMARY KEY, value bigint NOT NULL); INSERT INTO newer_shared.meta VALUES ('schema_version', 99)"));
    const error = await PostgresStorage.open(database.url, context, { schemaPrefix: 'newer' }).catch((e: Error) => e);
    expect((error as Error).message).toBe(`the database's merchant-kit schema (newer) is from a newer version (99 > ${PG_MIGRATIONS.length}); update merchant-kit or use another database`);
    const schemas = await admin((c) => c.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'newer%'"));
    expect(schemas.rows).toEqual([{ schema_name: 'newer_shared' }]);
  });

  it('refuses a schema prefix that is no plain identifier', async () => {
    await expect(PostgresStorage.open(database.url, context, { schemaPrefix: 'a"; DROP' })).rejects.toThrow(/schema prefix/);
  });

  it('runs a statement or a unit of work again on another connection when the one it was handed had been ended while idle', async () => {
    const storage = await PostgresStorage.open(database.url, context, { schemaPrefix: 'stale' });
    try {
      const env = storage.env('test');
      const { storeId } = await storeWithIntegration(env);
      const pool = (storage as unknown as { pool: pg.Pool }).pool;
      // Three connections go back idle, deaf until the statements below are on their way: as under
      // load, the driver has not yet read the server's notice when the pool gives them out again.
      const held = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
      const pids = await Promise.all(held.map(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
      const sockets = held.map((c) => (c as unknown as { connection: { stream: { pause(): void; resume(): void } } }).connection.stream);
      for (const socket of sockets) socket.pause();
      for (const client of held) client.release();
      // Waits until each session has ended (PostgreSQL 14: the second argument).
      await admin((c) => c.query('SELECT pg_terminate_backend(pid, 10000) FROM unnest($1::int[]) AS pid', [pids]));
      const answers = Promise.all([env.stores.byId(storeId), env.tx((tx) => tx.stores.byId(storeId)), env.stores.byId(storeId)]);
      // Once the statements are on their way, the notices are read: each meets its statement.
      setImmediate(() => sockets.forEach((socket) => socket.resume()));
      expect((await answers).map((s) => s!.id)).toEqual([storeId, storeId, storeId]);
      const live = await admin((c) => c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]));
      expect(live.rows[0]!.n).toBe(0);
    } finally {
      await storage.close();
    }
  });

  it('fails operations as unavailable while the connection is lost, and carries on once it is back', async () => {
    const storage = await PostgresStorage.open(database.url, context, { schemaPrefix: 'lost' });
    try {
      const env = storage.env('test');
      const { storeId } = await storeWithIntegration(env);
      // The server ends every session of the sandbox's database, as a restart would.
      const pending = env.tx(async (tx) => {
        await tx.stores.byId(storeId);
        await admin((c) => c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'merchant-kit'"));
        await tx.stores.update({ ...(await tx.stores.byId(storeId))!, name: 'never' } as never, 1);
      });
      const error = await pending.catch((e: unknown) => e);
      expect(isDriverUnavailable(error)).toBe(true);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as Error).message).toMatch(/^the database is unavailable \(/);
      // Nothing half applied; the next operations reconnect by themselves.
      expect((await env.stores.byId(storeId))!.name).not.toBe('never');
      await env.tx((tx) => tx.stores.nextOrderNumber(storeId));
      expect(await env.stores.nextOrderNumber(storeId)).toBe(2);
      // The change feed listens again too.
      const other = await PostgresStorage.open(database.url, context, { schemaPrefix: 'lost' });
      const seen: string[] = [];
      storage.changes.on('auth', (c) => seen.push(c.topic));
      await expect.poll(async () => {
        await other.env('test').integrations.activate('nope', 1);
        await storeWithIntegration(other.env('test'));
        return seen.length;
      }, { timeout: 15_000, interval: 500 }).toBeGreaterThan(0);
      await other.close();
    } finally {
      await storage.close();
    }
  });
});
