import { describe, expect, it } from 'vitest';
import type { StoragePort } from '../../../../emulator/store/port.js';
import type { ProductPageArgs } from '../../../../emulator/catalog/repository.js';
import { presentProducts } from '../../../../emulator/catalog/present.js';
import { page } from '../../../../emulator/catalog/cursor.js';
import { SqliteStorage } from '../../../../emulator/adapters/sqlite/index.js';
import { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { createTestDatabase, PG_URL } from '../../../helpers/postgres.js';
import { describeAdapters } from './harness.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import { category, group, option, product, standaloneContext, storeWithIntegration, T0 } from './fixtures.js';

// GET /catalog/products's body is the adapter's: byte for byte JSON.stringify of the catalog's
// presenter, and the same bytes on both adapters for the same rows (ids sort byte by byte).

/** One store's catalog with every shape a product text takes; ids chosen so a locale's order would differ. */
async function loadCatalog(storage: StoragePort) {
  const env = storage.env('test');
  const { storeId, integrationId } = await storeWithIntegration(env);
  const pizzas = category(storeId, integrationId, { id: 'cat_PIZZAS', externalId: 'CAT-PIZZA' });
  const drinks = category(storeId, null, { id: 'cat_drinks', externalId: null, name: 'Bebidas' });
  await env.catalog.insertCategory(pizzas);
  await env.catalog.insertCategory(drinks);
  const ids = ['prd_A1', 'prd_B2', 'prd_a3', 'prd_b4', 'prd__5', 'prd_Z6', 'prd_z7'];
  for (const [i, id] of ids.entries()) {
    const p = product(storeId, i === 4 ? null : integrationId, i % 3 ? pizzas.id : drinks.id, {
      id, externalId: i === 4 ? null : `P-${i}`, active: i !== 2, available: i !== 3, price: 1234567 + i, position: i % 2 ? i : null,
      description: i === 1 ? 'Con "comillas", \\barras\\ y\nlíneas 🍕' : null, updatedAt: T0 + i * 1000, sourceUpdatedAt: i === 5 ? null : T0,
      photoUrl: i === 6 ? 'https://img.example/p.png' : null, photoSource: i === 6 ? 'panel' : null, imageStatus: i === 6 ? 'ready' : 'none',
    });
    await env.catalog.insertProduct(p);
    if (i % 2 === 0) {
      const g = group(id, p.integrationId, { id: `ogr_${i}b`, position: 1 });
      const g0 = group(id, p.integrationId, { id: `ogr_${i}a`, position: 0, externalId: null, name: 'Extras\u00a0Ñ' });
      await env.catalog.insertGroup(g);
      await env.catalog.insertGroup(g0);
      await env.catalog.insertOption(option(g, { id: `opt_${i}x`, position: 2 }));
      await env.catalog.insertOption(option(g, { id: `opt_${i}y`, position: 1, price: 0, available: false }));
      await env.catalog.insertOption(option(g0, { id: `opt_${i}z`, externalId: null }));
    }
  }
  return { storeId, integrationId };
}

function cases(storeId: string, integrationId: string): ProductPageArgs[] {
  const base: ProductPageArgs = { integrationId, storeId, since: 0, after: '', limit: 50, categoryExternalId: null, active: null };
  return [
    base,
    { ...base, limit: 2 },
    { ...base, limit: 2, after: 'prd_B2' },
    { ...base, after: 'prd_Z6' },
    { ...base, since: T0 + 3000 },
    { ...base, active: true },
    { ...base, active: false },
    { ...base, categoryExternalId: 'CAT-PIZZA' },
    { ...base, categoryExternalId: 'CAT-NONE' },
    { ...base, storeId: 'str_other' },
  ];
}

describeAdapters('the products page', (h) => {
  it('answers JSON.stringify of the presenter, in id order byte by byte, for every filter', async () => {
    const { storeId, integrationId } = await loadCatalog(h.storage);
    const catalog = h.storage.env('test').catalog;
    for (const args of cases(storeId, integrationId)) {
      // issue 25: a page is one round trip on a server database, whatever its filters (counted in a
      // request's scope: the notices of the writes above travel outside it).
      roundTrips.countRequests();
      const before = roundTrips.snapshot().requests['products page']?.trips ?? 0;
      const body = await roundTrips.inRequest(async () => {
        roundTrips.name('products page');
        const out = await catalog.productPage(args);
        roundTrips.answered();
        return out;
      });
      if (h.kind === 'postgres') expect(roundTrips.snapshot().requests['products page']!.trips - before, JSON.stringify(args)).toBe(1);
      // What the presenter makes of the same rows, read one by one.
      const all = [];
      for (const id of ['prd_A1', 'prd_B2', 'prd_Z6', 'prd__5', 'prd_a3', 'prd_b4', 'prd_z7']) {
        const view = await catalog.productViewById(id);
        if (!view || view.storeId !== args.storeId || view.id <= args.after || view.updatedAt < args.since) continue;
        if (args.active !== null && view.active !== args.active) continue;
        if (args.categoryExternalId !== null && view.categoryExternalId !== args.categoryExternalId) continue;
        all.push(view);
      }
      const cut = page(all, args.limit);
      const expected = JSON.stringify({ data: await presentProducts(catalog, cut.rows), next_cursor: cut.next_cursor });
      expect(body.toString('utf8'), JSON.stringify(args)).toBe(expected);
    }
  });
});

describe.skipIf(!PG_URL)('the products page on both adapters', () => {
  it('is the same bytes on SQLite and PostgreSQL for the same rows', async () => {
    const context = standaloneContext();
    const database = await createTestDatabase();
    const sqlite = new SqliteStorage({ dataDir: null }, context);
    const postgres = await PostgresStorage.open(database.url, context);
    try {
      const a = await loadCatalog(sqlite);
      // The same ids on both: the second load is made to write the first's store and integration ids.
      const rows = await sqlite.admin.dump('test');
      await postgres.admin.restore({ test: rows, live: await sqlite.admin.dump('live') });
      for (const args of cases(a.storeId, a.integrationId)) {
        const [left, right] = [await sqlite.env('test').catalog.productPage(args), await postgres.env('test').catalog.productPage(args)];
        expect(right.equals(left), `${JSON.stringify(args)}\n${left}\n${right}`).toBe(true);
      }
    } finally {
      await sqlite.close();
      await postgres.close();
      await database.drop();
    }
  });
});
