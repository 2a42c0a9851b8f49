import pg from 'pg';
import { randomBytes } from 'node:crypto';

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

/** A new, empty database on the test server; `drop()` removes it (and ends what is still connected). */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!PG_URL) throw new Error('MERCHANT_KIT_TEST_DATABASE_URL is not set');
  const name = `mk_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  // A language's collation where the server has one (ICU, PostgreSQL 15+): texts must still sort byte
  // by byte, as the adapter's columns say, whatever the database's default.
  await admin(async (c) => {
    try {
      await c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
    } catch {
      await c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
    }
  });
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
