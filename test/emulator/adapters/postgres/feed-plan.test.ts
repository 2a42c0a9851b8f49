import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { admitStatement, feedRowsOf } from '../../../../emulator/adapters/postgres/admission.js';
import { eventsSql, newestEvent } from '../../../../emulator/adapters/postgres/events.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { EVENT_TYPES } from '../../../../src/contract/events.js';
import { LIMITS } from '../../../../src/contract/limits.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';
import { standaloneContext, T0 } from '../../store/contract/fixtures.js';

// issue 25, ninth step: a feed page reads the integration's events from where the page starts,
// whatever the feed held before it and whoever else's events it holds. Its plan (generic, as the
// adapter's pool makes them) once joined where the page starts, so the start was a join filter and
// every page read every event from the first one; and it walked every integration's events by
// position. Both grew with the feed. What the plan reads is counted, not timed. Eleventh step: the
// admission's own feed read (the integration a value of its credential's CTE, the limit a parameter),
// on a feed that is one integration's (a busy store's ERP), took the order of positions for its
// LIMIT and read the whole feed up to the cursor at every page, and all of it for another integration.

const context = standaloneContext();

interface PlanNode { 'Relation Name'?: string; 'Actual Rows'?: number; 'Rows Removed by Filter'?: number; 'Rows Removed by Join Filter'?: number; Plans?: PlanNode[] }

/** Rows the plan's scans of `relation` produced or filtered out, and rows its joins filtered out. */
function rowsRead(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) : 0;
  return own + (node['Rows Removed by Join Filter'] ?? 0) + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, relation), 0);
}

describe.skipIf(!PG_URL)('a feed page (PostgreSQL)', () => {
  const db = useTestClient();
  const schema = schemaNames().env.test;

  beforeAll(async () => {
    const storage = await PostgresStorage.open(db.database().url, context);
    await storage.close();
    // Positions 1–3: int_c's events; then 1,200 events of int_a (even positions) and int_b (odd).
    await db.client().query(
      `INSERT INTO ${schema}.events (seq, id, type, store_id, integration_id, created_at, data)
       SELECT g, 'evt_' || g, 'order.created', 'sto_1', CASE WHEN g <= 3 THEN 'int_c' WHEN g % 2 = 0 THEN 'int_a' ELSE 'int_b' END, $1::bigint + g, '{}'
       FROM generate_series(1, 1203) g`, [T0]);
    await db.client().query(`ANALYZE ${schema}.events`);
    await db.client().query('SET plan_cache_mode = force_generic_plan');
    await db.client().query(`PREPARE feed_after(text, bigint, bigint, text[], integer, bigint) AS ${eventsSql(schema).feedAfter.text}`);
    await db.client().query(`PREPARE newest(text, bigint) AS SELECT (${newestEvent(schema, '$1::text', '$2::bigint')}) AS newest`);
  });

  /** `feedAfter`'s page of 100 (the integration, the cursor's position and time: 0 and 0 from the start), and the events its plan read. */
  async function feedAfter(integrationId: string, cursorSeq: number, cursorCreatedAt: number) {
    const args = `'${integrationId}', ${cursorSeq}, 0, ARRAY[${EVENT_TYPES.map((t) => `'${t}'`).join(', ')}], 101, ${cursorCreatedAt}`;
    const { rows } = await db.client().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE feed_after(${args})`);
    const page = await db.client().query<{ seq: string | null }>(`EXECUTE feed_after(${args})`);
    return { seqs: page.rows.map((r) => Number(r.seq)), eventsRead: rowsRead(rows[0]!['QUERY PLAN'][0].Plan, 'events') };
  }

  it('reads the events after the cursor only, not the feed before it', async () => {
    const page = await feedAfter('int_a', 1160, T0 + 1160);
    expect(page.seqs).toEqual(Array.from({ length: 21 }, (_, i) => 1162 + 2 * i));
    // The page's 21 events and the cursor's, where reading from the first event is over a thousand.
    expect(page.eventsRead).toBeLessThan(50);
  });

  it('reads the integration\'s own events only, however long the others\' feed after them', async () => {
    // A first page (no cursor) of int_c: its three events, then 1,200 of the others.
    const page = await feedAfter('int_c', 0, 0);
    expect(page.seqs).toEqual([1, 2, 3]);
    expect(page.eventsRead).toBeLessThan(20);
  });

  it('finds the integration\'s newest event (an empty first page\'s next cursor) by its own events only', async () => {
    const newest = async (integrationId: string) => {
      const { rows } = await db.client().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE newest('${integrationId}', 0)`);
      const found = await db.client().query<{ newest: [number, number] | null }>(`EXECUTE newest('${integrationId}', 0)`);
      return { newest: found.rows[0]!.newest, eventsRead: rowsRead(rows[0]!['QUERY PLAN'][0].Plan, 'events') };
    };
    expect(await newest('int_c')).toEqual({ newest: [3, T0 + 3], eventsRead: 1 });
    // An integration with no event yet (an ERP polling before its first order): nothing to walk.
    expect(await newest('int_d')).toEqual({ newest: null, eventsRead: 0 });
  });
});

describe.skipIf(!PG_URL)('an admission\'s feed page (PostgreSQL)', () => {
  const db = useTestClient();
  const names = schemaNames();
  const schema = names.env.test;
  const INTEGRATIONS = ['int_a', 'int_d'];

  beforeAll(async () => {
    const storage = await PostgresStorage.open(db.database().url, context);
    await storage.close();
    // 1,200 events of int_a, the store's busy integration (each with an order of a kilobyte or so, as
    // the feed's are); int_d has none yet.
    await db.client().query(
      `INSERT INTO ${schema}.events (seq, id, type, store_id, integration_id, created_at, data)
       SELECT g, 'evt_' || g, 'order.created', 'sto_1', 'int_a', $1::bigint + g,
         json_build_object('order', json_build_object('id', 'ord_' || g, 'notes', repeat(md5(g::text), 48)))::text
       FROM generate_series(1, 1200) g`, [T0]);
    await db.client().query(
      `INSERT INTO ${schema}.stores (id, slug, name, payment_methods, fulfillment_types, created_at, updated_at) VALUES ('sto_1', 'tienda', 'Tienda', '[]', '[]', $1, $1)`, [T0]);
    await db.client().query(
      `INSERT INTO ${schema}.integrations (id, store_id, system, status, scopes, settings, created_at, updated_at)
       SELECT i, 'sto_1', 'erp', 'active', '[]', '{}', $1, $1 FROM unnest($2::text[]) i`, [T0, INTEGRATIONS]);
    await db.client().query(
      `INSERT INTO ${schema}.credentials (key_id, integration_id, secret_sha256, created_at)
       SELECT 'key_' || right(i, 1), i, '\\x00', $1 FROM unnest($2::text[]) i`, [T0, INTEGRATIONS]);
    await db.client().query(`ANALYZE ${schema}.events`);
    await db.client().query('SET plan_cache_mode = force_generic_plan');
    await db.client().query(
      `PREPARE admit(bigint, bigint, boolean, text, text, bytea, bigint, text, bigint, bigint, bigint, text[], text[], integer) AS ${admitStatement(names, schema, 'feed', null).text}`,
    );
  });

  /**
   * The admission of a page of 100 for the credential `key` (the cursor's position and time: 0 and 0
   * from the start): the page's positions, its next cursor when empty, and the events its plan read.
   */
  async function admitted(key: string, cursorSeq: number, cursorCreatedAt: number) {
    const now = T0 + 10_000;
    const types = `ARRAY[${EVENT_TYPES.map((t) => `'${t}'`).join(', ')}]`;
    const scopes = `ARRAY[${EVENT_TYPES.map(() => 'NULL').join(', ')}]::text[]`;
    const args = `${now}, ${now}, false, '127.0.0.1', '${key}', '\\x00', 10, NULL, ${cursorSeq}, ${cursorCreatedAt}, ${LIMITS.eventRetentionMs}, ${types}, ${scopes}, 101`;
    const { rows } = await db.client().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE admit(${args})`);
    const page = await db.client().query<{ f_rows: string | null; f_newest: [number, number] | [] | null }>(`EXECUTE admit(${args})`);
    const seqs = feedRowsOf(page.rows[0]!.f_rows).map((e) => e.seq);
    return { seqs, newest: page.rows[0]!.f_newest, eventsRead: rowsRead(rows[0]!['QUERY PLAN'][0].Plan, 'events') };
  }

  it('reads the events after the cursor only, not the feed before it', async () => {
    const page = await admitted('key_a', 1160, T0 + 1160);
    expect(page.seqs).toEqual(Array.from({ length: 40 }, (_, i) => 1161 + i));
    // The page's 40 events and the cursor's, where reading from the first event is over a thousand.
    expect(page.eventsRead).toBeLessThan(60);
  });

  it('reads no event for an integration that has none, nor for its next cursor, however long the feed', async () => {
    expect(await admitted('key_d', 0, 0)).toEqual({ seqs: [], newest: [], eventsRead: 0 });
  });
});
