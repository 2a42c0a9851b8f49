import { describe, expect, it } from 'vitest';
import { createClock } from '../../../../emulator/clock.js';
import { IdFactory } from '../../../../src/contract/ids.js';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { eventsSql } from '../../../../emulator/adapters/postgres/events.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { EVENT_TYPES } from '../../../../src/contract/events.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';
import { T0 } from '../../store/contract/fixtures.js';

// issue 25, ninth step: a feed page after a cursor reads the events from the cursor on, whatever the
// feed held before it. Its plan (generic, as the adapter's pool makes them) once joined where the
// page starts, so the start was a join filter and every page read every event from the first one:
// a cost that grew with the feed. What the plan reads is counted, not timed.

const clock = createClock('manual', () => T0);
const context = { clock: () => clock, ids: () => new IdFactory(() => clock.now()), outbox: () => null };

interface PlanNode { 'Relation Name'?: string; 'Actual Rows'?: number; 'Rows Removed by Filter'?: number; 'Rows Removed by Join Filter'?: number; Plans?: PlanNode[] }

/** Rows the plan's scans of `relation` produced or filtered out, and rows its joins filtered out. */
function rowsRead(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) : 0;
  return own + (node['Rows Removed by Join Filter'] ?? 0) + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, relation), 0);
}

describe.skipIf(!PG_URL)('a feed page after a cursor (PostgreSQL)', () => {
  const db = useTestClient();

  it('reads the events after the cursor only, not the feed before it', async () => {
    const names = schemaNames();
    const storage = await PostgresStorage.open(db.database().url, context);
    await storage.close();
    const schema = names.env.test;
    // 600 events of two integrations, one after the other; the cursor is the first one's 580th.
    await db.client().query(
      `INSERT INTO ${schema}.events (seq, id, type, store_id, integration_id, created_at, data)
       SELECT g, 'evt_' || g, 'order.created', 'sto_1', CASE WHEN g % 2 = 0 THEN 'int_a' ELSE 'int_b' END, $1::bigint + g, '{}'
       FROM generate_series(1, 1200) g`, [T0]);
    await db.client().query(`ANALYZE ${schema}.events`);
    await db.client().query('SET plan_cache_mode = force_generic_plan');
    const feedAfter = eventsSql(schema).feedAfter.text;
    await db.client().query(`PREPARE feed_after(text, bigint, bigint, text[], integer, bigint) AS ${feedAfter}`);
    // The integration, the cursor's position, the retention's cutoff, the types, the page's size plus one, the cursor's time.
    const args = `'int_a', 1160, 0, ARRAY[${EVENT_TYPES.map((t) => `'${t}'`).join(', ')}], 101, ${T0 + 1160}`;
    const { rows } = await db.client().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE feed_after(${args})`);
    const page = await db.client().query<{ seq: string }>(`EXECUTE feed_after(${args})`);
    await db.client().query('DEALLOCATE feed_after');
    expect(page.rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 20 }, (_, i) => 1162 + 2 * i));
    // The page's 20 events, the cursor's, and the other integration's among them: about 45 rows, where
    // reading from the first event is over a thousand.
    expect(rowsRead(rows[0]!['QUERY PLAN'][0].Plan, 'events')).toBeLessThan(100);
  });
});
