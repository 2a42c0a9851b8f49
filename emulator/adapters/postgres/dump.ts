import type { Environment } from '../../../src/contract/store.js';
import type { EnvironmentDump, TableDump } from '../../bundle/format.js';
import { blankSigningSecrets, cell } from '../../bundle/scrub.js';
import type { PoolClient } from './connect.js';
import { DUMP_TABLES, isRuntimeColumn, quote, type SchemaNames } from './schema.js';

/** Each bundle table's columns as stored here (this adapter's own columns left out), in table order. */
export async function bundleColumns(client: PoolClient, schema: string): Promise<Map<string, string[]>> {
  const { rows } = await client.query<{ table: string; column: string }>(
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
     WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const out = new Map<string, string[]>();
  for (const { table, column } of rows) {
    if (isRuntimeColumn(column)) continue;
    out.set(table, [...(out.get(table) ?? []), column]);
  }
  return out;
}

/** A stored value as a bundle cell: flags as SQLite's 0/1, the rest as the embedded adapter writes it. */
const toCell = (value: unknown) => cell(typeof value === 'boolean' ? (value ? 1 : 0) : value);

/**
 * One environment as a bundle holds it, in the embedded adapter's format: its tables in the order
 * that adapter creates them, rows in the order it reads them, its feed and delivery positions. Read
 * in one repeatable-read transaction, so that the tables agree with one another.
 */
export async function dumpEnvironment(client: PoolClient, names: SchemaNames, env: Environment): Promise<EnvironmentDump> {
  const schema = names.env[env];
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const columns = await bundleColumns(client, schema);
    const tables: Record<string, TableDump> = {};
    for (const { name, orderBy } of DUMP_TABLES) {
      const list = columns.get(name) ?? [];
      const { rows } = await client.query<unknown[]>({
        text: `SELECT ${list.map(quote).join(', ')} FROM ${quote(schema)}.${quote(name)} ORDER BY ${orderBy}`,
        rowMode: 'array',
      });
      const cells = rows.map((row) => row.map(toCell));
      blankSigningSecrets(name, list, cells);
      tables[name] = { columns: list, rows: cells };
    }
    const sequences: Record<string, number> = {};
    const seq = await client.query<{ name: string; seq: number }>(`SELECT name, seq FROM ${quote(schema)}.sequences ORDER BY name`);
    for (const s of seq.rows) sequences[s.name] = s.seq;
    const version = await client.query<{ value: number }>(`SELECT value FROM ${quote(names.shared)}.meta WHERE key = 'schema_version'`);
    await client.query('COMMIT');
    return { schema_version: version.rows[0]?.value ?? 0, tables, sequences };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
