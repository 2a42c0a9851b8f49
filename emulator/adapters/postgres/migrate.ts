import { ENVIRONMENTS } from '../../../src/contract/store.js';
import { MIGRATIONS, type PgMigration } from './migrations/index.js';
import { serverProblem, type Client, type PoolClient } from './connect.js';
import { quote, type SchemaNames } from './schema.js';

/** Advisory lock keys of merchant-kit (the second key is the prefix's hash: sandboxes do not wait on each other). */
export const LOCK_CLASS = { migrate: 0x4d4b4d31, seeds: 0x4d4b5331, accessRequests: 0x4d4b4131, signingKeys: 0x4d4b4b31 } as const;

/** A database the adapter must not use: too old a server, a newer schema. One line, no stack. */
export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
    this.stack = `${this.name}: ${message}`;
  }
}

/** The server's version and encoding, refused when the adapter cannot run on them. */
export async function checkServer(client: Client | PoolClient): Promise<void> {
  const { rows } = await client.query<{ version: string; encoding: string }>(
    "SELECT current_setting('server_version_num') AS version, current_setting('server_encoding') AS encoding",
  );
  const problem = serverProblem(Number(rows[0]!.version), rows[0]!.encoding);
  if (problem) throw new SchemaError(problem);
}

/**
 * Brings the sandbox's schemas to the latest version, in one transaction under an advisory lock:
 * processes starting at once wait for the first, which migrates; the others then find the schema
 * current. A database migrated by a newer merchant-kit is refused (its tables may mean other things).
 * Answers the version found before.
 */
export async function migrate(client: Client | PoolClient, names: SchemaNames, migrations: PgMigration[] = MIGRATIONS): Promise<number> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
  const latest = migrations.length;
  const shared = quote(names.shared);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS.migrate, names.prefix]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${shared}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${shared}.meta (key text PRIMARY KEY, value bigint NOT NULL)`);
    const { rows } = await client.query<{ value: number }>(`SELECT value FROM ${shared}.meta WHERE key = 'schema_version'`);
    const current = rows[0]?.value ?? 0;
    if (current > latest) {
      throw new SchemaError(
        `the database's merchant-kit schema (${names.prefix}) is from a newer version (${current} > ${latest}); update merchant-kit or use another database`,
      );
    }
    for (const m of migrations.slice(current)) {
      for (const env of ENVIRONMENTS) {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(names.env[env])}`);
        await client.query(`SET LOCAL search_path TO ${quote(names.env[env])}`);
        await client.query(m.env);
      }
      if (m.shared) {
        await client.query(`SET LOCAL search_path TO ${shared}`);
        await client.query(m.shared);
      }
    }
    if (current < latest) {
      await client.query(
        `INSERT INTO ${shared}.meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [latest],
      );
    }
    await client.query('COMMIT');
    return current;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
