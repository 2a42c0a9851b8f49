// Throwaway PostgreSQL databases for a benchmark (`--database-url SERVER_URL`): one fresh database
// per configuration, so that every process count and every build starts on an empty sandbox, and
// none of them runs on a schema another build migrated. Each is dropped when its stage ends, or when
// the benchmark stops (errors and Ctrl+C included).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onStop } from './processes.mjs';

const made = new Set();

async function onServer(serverUrl, sql) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database on the server of `serverUrl` (a role that may CREATE DATABASE), named
 * `mk_bench_<pid>_<random>`. Resolves with its URL and `drop()`, which ends what is still connected.
 */
export async function freshDatabase(serverUrl) {
  const name = `mk_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  try {
    await onServer(serverUrl, `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  } catch (error) {
    throw new Error(`cannot create a database on ${shown(serverUrl)}: ${error.message}`);
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = null;
  const db = {
    name,
    url: url.toString(),
    drop() {
      dropped ??= onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => made.delete(db));
      return dropped;
    },
  };
  made.add(db);
  return db;
}

/** A server URL as printed: never its password. */
export function shown(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the given server';
  }
}

// After the children are stopped (they hold connections), whatever was made is dropped.
onStop(() => Promise.all([...made].map((db) => db.drop().catch(() => undefined))));
