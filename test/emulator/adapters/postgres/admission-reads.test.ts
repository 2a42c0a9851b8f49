import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfig } from '../../../../emulator/adapters/postgres/connect.js';
import { orderWithHistoryColumns, orderWithHistoryOf } from '../../../../emulator/adapters/postgres/orders.js';
import { productPageSql } from '../../../../emulator/adapters/postgres/product-page.js';
import { schemaNames } from '../../../../emulator/adapters/postgres/schema.js';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';
import { orderAction, seedMenu, simulate } from '../../../helpers/orders.js';

// issue 25, thirteenth step: an admission reads its products page and its order through the functions
// of migration 13 (`product_page`, `order_read`), whose SQL was written once, in that migration. The
// adapter's own reads (product-page.ts, orders.ts) stay the source of the columns: whatever they
// answer, the functions must answer too, field for field, or a column added to either side later would
// be missing from what a read of the API shows. A change to the columns needs a migration replacing
// the functions; this test is what says so.

describe.skipIf(!PG_URL)('the admission\'s reads of migration 13 answer what the adapter\'s own reads answer', () => {
  let database: TestDatabase;
  let emu: TestEmulator;
  let client: pg.Client;
  const schema = schemaNames().env.test;
  const quoted = `"${schema}"`;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    emu = await startTestEmulator({ databaseUrl: database.url });
    await seedMenu(emu);
    // The adapter's parsers (bigint columns as numbers), as its own reads get them.
    client = new pg.Client(clientConfig(database.url));
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await emu?.close();
    await database?.drop();
  });

  it('product_page: the same products, option groups and options for every filter and cut', async () => {
    const own = productPageSql(schema).page;
    const integration = emu.test.integration_id;
    const store = emu.test.store_id;
    const cases: [since: number, after: string, limitPlusOne: number, category: string | null, active: boolean | null][] = [
      [0, '', 51, null, null], [0, '', 2, null, null], [0, '', 51, 'CAT-BURGER', null], [0, '', 51, null, true],
      [0, '', 51, 'NO-SUCH', null], [Number.MAX_SAFE_INTEGER, '', 51, null, null],
    ];
    const first = (await client.query(own.text, [store, 0, '', 2, integration, null, null])).rows[0]!;
    cases.push([0, first.products[0].id, 51, null, false]);
    for (const [since, after, limitPlusOne, category, active] of cases) {
      const expected = (await client.query(own.text, [store, since, after, limitPlusOne, integration, category, active])).rows[0]!;
      const { rows } = await client.query(`SELECT ${quoted}.product_page($1, $2, $3, $4, $5, $6, $7) AS page`, [store, integration, since, after, limitPlusOne, category, active]);
      expect(rows[0]!.page, JSON.stringify({ since, after, limitPlusOne, category, active })).toEqual(expected);
    }
    expect(first.products.length).toBe(2);
    // The menu has option groups and options: the comparison covers them.
    const whole = (await client.query(own.text, [store, 0, '', 51, integration, null, null])).rows[0]!;
    expect([whole.groups.length, whole.options.length].every((n) => n > 0)).toBe(true);
  });

  it('order_read: the same order, field for field, and the same history', async () => {
    const order = await simulate(emu);
    expect((await orderAction(emu, order.id, 'ack', { external_id: 'ERP-1' })).status).toBe(200);
    expect((await orderAction(emu, order.id, 'status', { status: 'accepted' })).status).toBe(200);
    const ownRead = `SELECT ${orderWithHistoryColumns(schema)} FROM ${quoted}.orders o WHERE o.id = $1`;
    const expected = orderWithHistoryOf((await client.query(ownRead, [order.id])).rows[0]!);
    const { rows } = await client.query(`SELECT ${quoted}.order_read($1) AS o`, [order.id]);
    expect(orderWithHistoryOf(rows[0]!.o)).toEqual(expected);
    expect(expected.history.length).toBeGreaterThan(0);
    expect((await client.query(`SELECT ${quoted}.order_read('ord_none') AS o`)).rows[0]!.o).toBeNull();
  });
});
