import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { category, group, option, product, storeWithIntegration } from './fixtures.js';
import { productsWithOptions } from '../../../../emulator/catalog/repository.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';

// issue 25: the simulator's cart reads its products with their groups and options at once: one
// statement on a server database, the same records as the reads one kind after the other.

describeAdapters('the cart\'s products with their options', (h) => {
  it('are the records the separate reads give, in the order asked, in one round trip on a server database', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const c = category(storeId, integrationId);
    await env.catalog.insertCategory(c);
    const plain = product(storeId, integrationId, c.id, { externalId: null, position: 2 });
    const full = product(storeId, integrationId, c.id, { description: 'con "todo"', position: 1 });
    for (const p of [plain, full]) await env.catalog.insertProduct(p);
    const size = group(full.id, integrationId, { minSelect: 1, maxSelect: 1, position: 1 });
    const extras = group(full.id, null, { externalId: null, position: 0 });
    for (const g of [size, extras]) await env.catalog.insertGroup(g);
    for (const o of [option(size, { position: 1 }), option(size, { position: 0, available: false }), option(extras, { externalId: null, integrationId: null })]) {
      await env.catalog.insertOption(o);
    }
    const ids = [full.id, 'prd_nobody', plain.id];
    roundTrips.countRequests();
    const route = `cart ${Date.now()}`;
    const read = await roundTrips.inRequest(async () => {
      roundTrips.name(route);
      const value = await productsWithOptions(env.catalog, ids);
      roundTrips.answered();
      return value;
    });
    if (h.kind === 'postgres') expect(roundTrips.snapshot().requests[route]!.trips).toBe(1);
    else expect(env.catalog.productsWithOptions).toBeUndefined();
    const expected = [];
    for (const p of [full, plain]) {
      expected.push({
        product: await env.catalog.productById(p.id),
        groups: await env.catalog.groupsOfProducts([p.id]),
        options: await env.catalog.optionsOfProducts([p.id]),
      });
    }
    expect(read).toEqual(expected);
    expect(read[0]!.groups.map((g) => g.id)).toEqual([extras.id, size.id]);
    expect(read[1]).toMatchObject({ groups: [], options: [] });
  });
});
