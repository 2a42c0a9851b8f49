import type { SeededStore, SeedStore } from '../../store/coordination.js';
import { statement, tableIn, type Conn } from './conn.js';
import { checkoutOrUnavailable, type Pool } from './connect.js';
import { translate } from './errors.js';
import { LOCK_CLASS } from './migrate.js';
import type { SchemaNames } from './schema.js';

/**
 * The demo stores and the credentials the ready line prints, made once per sandbox. They sit in the
 * shared schema in clear: the ready line of every process shows them, and whoever reads this schema
 * can read the sandbox's whole state anyway. `once` holds an advisory lock while the first process
 * makes them; the others wait, then find them made.
 */
export function pgSeeds(conn: Conn, pool: Pool, names: SchemaNames): SeedStore {
  const t = tableIn(names.shared);
  const load = statement(`SELECT seeds FROM ${t('seeds')}`);
  const save = statement(`INSERT INTO ${t('seeds')} (seeds) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seeds = excluded.seeds`);
  return {
    async load() {
      const [row] = await conn.rows<{ seeds: string }>(load);
      return row ? (JSON.parse(row.seeds) as SeededStore[]) : null;
    },
    async save(seeds) {
      await conn.run(save, [JSON.stringify(seeds)]);
    },
    async once(make) {
      const client = await checkoutOrUnavailable(pool);
      const lock = [LOCK_CLASS.seeds, names.prefix];
      try {
        await client.query('SELECT pg_advisory_lock($1, hashtext($2))', lock);
      } catch (error) {
        client.release(true);
        throw translate(error);
      }
      let keep = true;
      try {
        return await make();
      } finally {
        // A session lock goes with its connection: when the unlock fails, the connection is dropped.
        await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', lock).catch(() => (keep = false));
        client.release(keep ? undefined : true);
      }
    },
  };
}
