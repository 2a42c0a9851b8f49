import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { admitStatement, type ReadKind } from '../../../../emulator/adapters/postgres/admission.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';
import { standaloneContext } from '../../store/contract/fixtures.js';

// issue 25, thirteenth step: an admission runs once for every request, and PostgreSQL builds and
// tears down every node of its generic plan at each execution, whatever the execution reads: a
// relation, a scan or a join the plan holds costs the server CPU at every request. What the plans
// hold is counted here, not timed.

const context = standaloneContext();

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'CTE Name'?: string; Plans?: PlanNode[] }

function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

// The parameters' types, $1–$8 (the admission's own), then the read's.
const TYPES: Record<ReadKind, string> = {
  none: '',
  order: ', text, text',
  orderStatus: ', text',
  products: ', bigint, text, integer, text, boolean, bigint',
  feed: ', bigint, bigint, bigint, text[], text[], integer',
};
const OWN = 'bigint, bigint, boolean, text, text, bytea, bigint, text';

describe.skipIf(!PG_URL)('an admission\'s plan (PostgreSQL)', () => {
  const db = useTestClient();
  const names = schemaNames();
  const schema = names.env.test;
  let prepared = 0;

  beforeAll(async () => {
    const storage = await PostgresStorage.open(db.database().url, context);
    await storage.close();
    await db.client().query('SET plan_cache_mode = force_generic_plan');
  });

  /** The nodes of the generic plan of the admission of `read`, with the limits on (`hit`) or off (`tally`). */
  async function planOf(read: ReadKind, limits: 'hit' | 'tally'): Promise<PlanNode[]> {
    const name = `admit_${++prepared}`;
    const text = admitStatement(names, schema, read, limits === 'hit' ? null : "' process'").text;
    await db.client().query(`PREPARE ${name}(${OWN}${TYPES[read]}) AS ${text}`);
    const nulls = Array.from({ length: 8 + TYPES[read].split(',').length - 1 }, () => 'NULL').join(', ');
    const { rows } = await db.client().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${nulls})`);
    return nodes(rows[0]!['QUERY PLAN'][0].Plan);
  }
  const relations = (plan: PlanNode[]) => plan.flatMap((n) => (n['Relation Name'] ? [n['Relation Name']] : []));

  it('holds no scan of the products page\'s tables: the page is read by a function, only when the catalog moved', async () => {
    for (const limits of ['hit', 'tally'] as const) {
      const read = relations(await planOf('products', limits));
      expect(read).toContain('catalog_versions');
      for (const table of ['products', 'categories', 'option_groups', 'options']) expect(read).not.toContain(table);
    }
  });

  it('holds one scan of the order (its stamp) and of its history: the order is read by a function, only when it moved', async () => {
    for (const limits of ['hit', 'tally'] as const) {
      const read = relations(await planOf('order', limits));
      expect(read.filter((r) => r === 'orders')).toHaveLength(1);
      expect(read.filter((r) => r === 'order_status_history')).toHaveLength(1);
    }
  });

  it('holds, for a status call, one scan of the order and none of its history: only its status is read', async () => {
    for (const limits of ['hit', 'tally'] as const) {
      const read = relations(await planOf('orderStatus', limits));
      expect(read.filter((r) => r === 'orders')).toHaveLength(1);
      expect(read).not.toContain('order_status_history');
    }
  });

  it('reads the credential\'s records once, and sends them as one column, not by a second scan joined on their stamp', async () => {
    // (A feed page's CTEs read the integration from `a` by subqueries of their own.)
    for (const read of ['none', 'order', 'products'] as const) {
      const plan = await planOf(read, 'tally');
      // `a` (the credential, its integration and store) scanned once at most (PostgreSQL may inline it).
      expect(plan.filter((n) => n['CTE Name'] === 'a').length, read).toBeLessThanOrEqual(1);
      expect(relations(plan).filter((r) => r === 'credentials'), read).toHaveLength(1);
    }
  });

  it('with the limits off, reads no authentication failure, and judges the count in the final row with no CTE of its own', async () => {
    const plan = await planOf('none', 'tally');
    // The integration's shared window row and the other processes' tallies: the auth-failure window is not read.
    expect(relations(plan).filter((r) => r === 'rate_windows')).toHaveLength(2);
    expect(plan.some((n) => n['CTE Name'] === 'hit')).toBe(false);
    // With the limits on, the hit writes the window row, and the IP's failures are read.
    const hit = await planOf('none', 'hit');
    expect(relations(hit).filter((r) => r === 'rate_windows')).toHaveLength(3);
    expect(hit.some((n) => n['Node Type'] === 'ModifyTable')).toBe(true);
  });
});
