import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { catalogSql } from '../../../../emulator/adapters/postgres/catalog.js';
import { ordersSql } from '../../../../emulator/adapters/postgres/orders.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';
import { productWithOption, standaloneContext, storeWithIntegration } from '../../store/contract/fixtures.js';

// issue 25, fourteenth step: the simulator's cart reads (a store's orderable ids, the drawn products
// with their options) send what the process keeps only when the store's catalog version moved. What
// the server does for a kept read is checked on the executed plan: the reads of the rows kept are
// never executed (counted, not timed).

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Actual Loops'?: number; Plans?: PlanNode[] }

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe.skipIf(!PG_URL)('the cart\'s reads of a kept catalog (PostgreSQL)', () => {
  const db = useTestClient();
  const schema = schemaNames().env.test;

  /** A store with a product with a group and an option, and its catalog version. */
  async function store(): Promise<{ storeId: string; productId: string; version: string }> {
    const storage = await PostgresStorage.open(db.database().url, standaloneContext());
    try {
      const env = storage.env('test');
      const { storeId, integrationId } = await storeWithIntegration(env);
      const { product: p } = await productWithOption(env, storeId, integrationId);
      const { rows } = await db.client().query<{ v: string }>(`SELECT version::text AS v FROM "${schema}".catalog_versions WHERE store_id = $1`, [storeId]);
      return { storeId, productId: p.id, version: rows[0]!.v };
    } finally {
      await storage.close();
    }
  }

  let prepared = 0;
  /**
   * The tables the executed plan of `text` read (scans run at least once), with `args` (SQL literals of
   * the parameters' types), as a custom plan and as the generic plan a named statement settles on.
   */
  async function scanned(text: string, types: string, args: string): Promise<string[]> {
    const name = `cart_${++prepared}`;
    await db.client().query(`PREPARE ${name}(${types}) AS ${text}`);
    const read = new Set<string>();
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      await db.client().query(`SET plan_cache_mode = ${mode}`);
      const { rows } = await db.client().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${args})`);
      for (const n of nodes(rows[0]!['QUERY PLAN'][0].Plan)) if (n['Relation Name'] && (n['Actual Loops'] ?? 0) > 0) read.add(n['Relation Name']);
    }
    return [...read].sort();
  }

  it('reads no option group or option of a product kept at the current version, and both of one kept at another', async () => {
    const { productId, version } = await store();
    const text = catalogSql(schema).productsWithOptions.text;
    const kept = await scanned(text, 'text[], bigint[]', `ARRAY['${productId}'], ARRAY[${version}]::bigint[]`);
    expect(kept).toContain('catalog_versions');
    expect(kept).not.toContain('option_groups');
    expect(kept).not.toContain('options');
    const moved = await scanned(text, 'text[], bigint[]', `ARRAY['${productId}'], ARRAY[${BigInt(version) - 1n}]::bigint[]`);
    expect(moved).toEqual(expect.arrayContaining(['option_groups', 'options']));
  });

  it('reads no product or category for the orderable ids kept at the current version', async () => {
    const { storeId, version } = await store();
    const text = ordersSql(schema).orderable.text;
    expect(await scanned(text, 'text, boolean, bigint', `'${storeId}', false, ${version}`)).toEqual(['catalog_versions']);
    expect(await scanned(text, 'text, boolean, bigint', `'${storeId}', false, NULL`)).toEqual(expect.arrayContaining(['products', 'categories']));
  });
});
