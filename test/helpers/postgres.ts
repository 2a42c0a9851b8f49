import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { waitFor } from './wait.js';

/**
 * PostgreSQL for the tests: `MERCHANT_KIT_TEST_DATABASE_URL` names a server where the tests may
 * CREATE and DROP DATABASE (.ci/run starts a throwaway cluster and sets it). Each test file works in
 * a database of its own, dropped after it. Without the variable the PostgreSQL tests are skipped
 * locally, with a line saying so; on CI (`CI` set) they never skip: the file fails.
 */
export const PG_URL = process.env.MERCHANT_KIT_TEST_DATABASE_URL || undefined;

if (!PG_URL) {
  if (process.env.CI) {
    throw new Error('MERCHANT_KIT_TEST_DATABASE_URL is not set: the PostgreSQL tests never skip on CI (.ci/run starts a server and sets it)');
  }
  console.warn('MERCHANT_KIT_TEST_DATABASE_URL is not set: the PostgreSQL tests are skipped (set it to a server URL where tests may create databases)');
}

export interface TestDatabase {
  /** The URL of the test file's own database. */
  url: string;
  drop(): Promise<void>;
}

/** Runs `fn` on a connection to the test server's own database (`url`: another one). */
export async function admin<T>(fn: (client: pg.Client) => Promise<T>, url = PG_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabaseOptions {
  /**
   * Already migrated to the adapter's latest schema under the default prefix (no seeds, no clock):
   * a copy of the run's template, about half the time of migrating a new database. For tests that do
   * not look at migrations; without it the database is empty.
   */
  migrated?: boolean;
}

/** Unique names: the server is shared by every test file of every run. */
const databaseName = (kind: string) => `mk_${kind}_${process.pid}_${randomBytes(4).toString('hex')}`;

/** The URL of another database on the test server. */
function urlOf(name: string): string {
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * How the server copies a template (the run's migrated one, or template0 for an empty database): on
 * PostgreSQL 15 and newer its files copied whole (`FILE_COPY`: two checkpoints, nothing in the
 * write-ahead log) rather than the default `WAL_LOG`, which reads every page of the template and
 * writes it again through the log: a copy costs the server about half the CPU (docs/contributing.md,
 * "PostgreSQL in the tests"). PostgreSQL 14 has one way, without the clause.
 */
let copyClause: Promise<string> | undefined;
function strategyClause(c: pg.Client): Promise<string> {
  copyClause ??= c
    .query<{ version: number }>("SELECT current_setting('server_version_num')::int AS version")
    .then(({ rows }) => (rows[0]!.version >= 150000 ? ' STRATEGY FILE_COPY' : ''));
  copyClause.catch(() => (copyClause = undefined));
  return copyClause;
}

/** Creates `name` empty, in a language's collation where the server has one (see createTestDatabase). */
async function createEmpty(c: pg.Client, name: string): Promise<void> {
  const strategy = await strategyClause(c);
  try {
    await c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'${strategy}`);
  } catch {
    await c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'${strategy}`);
  }
}

/** The environment variable that names the run's template database (set by helpers/global-setup.ts). */
export const TEMPLATE_ENV = 'MERCHANT_KIT_TEST_TEMPLATE';

/** A name for the template of a run that starts now: its start in seconds, so that a killed run's is found later. */
export function newTemplateName(): string {
  return `mk_template_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
}

/** The start (ms) of the run a template belongs to, read from its name; null for another database. */
export function templateStart(name: string): number | null {
  const m = /^mk_template_(\d+)_[0-9a-f]{8}(?:_partial)?$/.exec(name);
  return m ? Number(m[1]) * 1000 : null;
}

/** Drops the templates (whole or partial) of runs that started more than a day ago: killed before their end. */
export async function dropStaleTemplates(): Promise<void> {
  const { rows } = await admin((c) => c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'mk\\_template\\_%'"));
  for (const { datname } of rows) {
    const start = templateStart(datname);
    if (start !== null && Date.now() - start > 86_400_000) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`));
  }
}

let template: Promise<string | null> | undefined;

/**
 * The run's migrated template, made once by the first file that asks (under an advisory lock, the
 * server being shared by both projects' workers): an empty database migrated under another name,
 * closed to connections (a connection to a template makes CREATE DATABASE fail), then renamed, so
 * that its name exists only once it is whole. Null without a run's global setup (no template: the
 * database is migrated by the adapter as it opens).
 */
function runTemplate(): Promise<string | null> {
  template ??= (async () => {
    const name = process.env[TEMPLATE_ENV];
    if (!name) return null;
    const exists = async (c: pg.Client) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      if (await exists(client)) return name;
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
      if (await exists(client)) return name;
      const partial = `${name}_partial`;
      await client.query(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`);
      await createEmpty(client, partial);
      const { checkServer, migrate } = await import('../../emulator/adapters/postgres/migrate.js');
      const { schemaNames } = await import('../../emulator/adapters/postgres/schema.js');
      await admin(async (c) => {
        await checkServer(c);
        await migrate(c, schemaNames());
      }, urlOf(partial));
      await client.query(`ALTER DATABASE ${partial} WITH ALLOW_CONNECTIONS false`);
      await client.query(`ALTER DATABASE ${partial} RENAME TO ${name}`);
      return name;
    } finally {
      await client.end();
    }
  })();
  return template;
}

/**
 * A copy of `source`. While anything is connected to it the server refuses (55006): nothing but the
 * server's own autovacuum can be (it takes no connections), and that only for a moment.
 */
async function copyOf(c: pg.Client, name: string, source: string): Promise<void> {
  const strategy = await strategyClause(c);
  await waitFor(async () => {
    try {
      await c.query(`CREATE DATABASE ${name} TEMPLATE ${source}${strategy}`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006') throw error;
      return false;
    }
  }, () => `a copy of ${source}, which something stays connected to`, { intervalMs: 100 });
}

/**
 * A new database on the test server: empty, or with `migrated` a copy of the run's migrated template;
 * `drop()` removes it (and ends what is still connected).
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (!PG_URL) throw new Error('MERCHANT_KIT_TEST_DATABASE_URL is not set');
  const name = databaseName('test');
  const source = options.migrated ? await runTemplate() : null;
  // A language's collation where the server has one (ICU, PostgreSQL 15+): texts must still sort byte
  // by byte, as the adapter's columns say, whatever the database's default. The template has it too.
  await admin((c) => (source ? copyOf(c, name, source) : createEmpty(c, name)));
  return {
    url: urlOf(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Drops the run's template (helpers/global-setup.ts, at the run's end). */
export async function dropTemplate(name: string): Promise<void> {
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`DROP DATABASE IF EXISTS ${name}_partial WITH (FORCE)`);
  });
}
