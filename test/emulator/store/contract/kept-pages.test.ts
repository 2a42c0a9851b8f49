import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { category, group, option, product, storeWithIntegration, T0 } from './fixtures.js';
import { presentProducts } from '../../../../emulator/catalog/present.js';
import { page } from '../../../../emulator/catalog/cursor.js';
import type { CatalogRepository, ProductPageArgs } from '../../../../emulator/catalog/repository.js';
import type { EnvStore, ProductPageQuery } from '../../../../emulator/store/port.js';
import { integrationSettings, SCOPES } from '../../../../src/contract/store.js';

// issue 25: a server database's admission keeps the products pages it built, each with its store's
// catalog version (the last transaction that wrote the store's categories, products, option groups or
// options), and the statement sends a page again only when that version moved. So a page is the kept
// one exactly while nothing of the store's catalog changed, and any committed write through any
// process — to each of the four tables, a reset, a restore — is in the next read. The embedded
// database keeps texts of its own (one process): the same writes are in its next read too.

const QUERY: ProductPageQuery = { since: 0, after: '', limit: 50, categoryExternalId: null, active: null };

/** What the presenter makes of the store's products, read one by one (no page, no kept text). */
async function expectedPage(catalog: CatalogRepository, ids: string[], args: ProductPageArgs): Promise<string> {
  const views = [];
  for (const id of [...ids].sort()) {
    const view = await catalog.productViewById(id);
    if (view && view.storeId === args.storeId) views.push(view);
  }
  const cut = page(views, args.limit);
  return JSON.stringify({ data: await presentProducts(catalog, cut.rows), next_cursor: cut.next_cursor });
}

describeAdapters('the products pages a process keeps', (h) => {
  it('answers the kept page while the catalog is unchanged, and every committed write through another process at the next read', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const args: ProductPageArgs = { ...QUERY, storeId, integrationId };
    const digest = createHash('sha256').update('svs_pages').digest();
    await env.credentials.insert('svk_pages', integrationId, digest, T0);
    // The page as the route gets it: through the admission on a server database, from the catalog otherwise.
    const read = async (): Promise<Buffer> => {
      if (!h.storage.admissions) return env.catalog.productPage(args);
      const admitted = await h.storage.admissions.admit({
        environment: 'test', credential: { keyId: 'svk_pages', digest }, ip: '192.0.2.1', limits: true, realNow: T0, now: T0,
        read: { kind: 'products', page: QUERY },
      });
      expect(admitted.products).toMatchObject({ integrationId, query: QUERY });
      return admitted.products!.body;
    };
    // Writes go through another process on a server database (the embedded one has one process).
    const writer: EnvStore = h.kind === 'postgres' ? (await h.openAnother()).env('test') : env;
    const ids: string[] = [];

    const pizzas = category(storeId, integrationId);
    await writer.catalog.insertCategory(pizzas);
    const first = product(storeId, integrationId, pizzas.id, { price: 1_000_00 });
    await writer.catalog.insertProduct(first);
    ids.push(first.id);
    let before = await read();
    expect(before.toString('utf8')).toBe(await expectedPage(writer.catalog, ids, args));
    // Unchanged: the very page kept (a server database sent no page).
    if (h.kind === 'postgres') expect(await read()).toBe(before);
    const admin = h.kind === 'postgres' ? (await h.openAnother()).admin : h.storage.admin;
    const saved = { body: before.toString('utf8'), dumps: { test: await admin.dump('test'), live: await admin.dump('live') } };

    const sizes = group(first.id, integrationId, { id: 'ogr_sizes' });
    const big = option(sizes, { id: 'opt_big' });
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['a product\'s price', async () => writer.catalog.updateProduct({ ...(await writer.catalog.productById(first.id))!, price: 2_000_00, updatedAt: T0 + 1 })],
      ['a new product', async () => {
        const second = product(storeId, integrationId, pizzas.id, { name: 'Napolitana' });
        ids.push(second.id);
        await writer.catalog.insertProduct(second);
      }],
      ['an option group', () => writer.catalog.insertGroup(sizes)],
      ['an option', () => writer.catalog.insertOption(big)],
      ['an option\'s price', () => writer.catalog.patchOption({ id: big.id, price: 3_000_00, available: false })],
      ['an option group\'s name', () => writer.catalog.updateGroup({ id: sizes.id, name: 'Tamaños', minSelect: 1, maxSelect: 1, position: 0 })],
      ['a product\'s image', () => writer.catalog.setImage(first.id, { photoUrl: 'https://img.example/a.png', photoSource: 'panel', imageStatus: 'ready', imageRequestedUrl: null, imageError: null }, T0 + 2)],
      ['an option deleted', () => writer.catalog.deleteOption(big.id)],
      ['an option group deleted', () => writer.catalog.deleteGroup(sizes.id)],
      // Not in the page's text, but a write to the store's catalog: the page is read again (and is the same).
      ['a category\'s name', () => writer.catalog.updateCategory({ id: pizzas.id, name: 'Pizzas', position: 2, active: true, sourceUpdatedAt: null, updatedAt: T0 + 3 })],
      ['a unit of work', () => writer.tx(async (tx) => {
        await tx.catalog.touchProduct(first.id, T0 + 4);
        await tx.catalog.updateProduct({ ...(await tx.catalog.productById(first.id))!, name: 'Muzza', updatedAt: T0 + 5 });
      })],
    ];
    for (const [what, write] of writes) {
      await write();
      const after = await read();
      if (h.kind === 'postgres') expect(after, what).not.toBe(before);
      expect(after.toString('utf8'), what).toBe(await expectedPage(writer.catalog, ids, args));
      if (h.kind === 'postgres') expect(await read(), what).toBe(after);
      before = after;
    }

    // Another store's catalog written: this store's kept page holds.
    const other = await storeWithIntegration(writer);
    const elsewhere = category(other.storeId, other.integrationId);
    await writer.catalog.insertCategory(elsewhere);
    await writer.catalog.insertProduct(product(other.storeId, other.integrationId, elsewhere.id));
    if (h.kind === 'postgres') expect(await read()).toBe(before);

    // A unit of work that rolls back leaves the page as it was; one not yet committed is not seen.
    await expect(writer.tx(async (tx) => {
      await tx.catalog.updateProduct({ ...(await tx.catalog.productById(first.id))!, price: 9_000_00, updatedAt: T0 + 6 });
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect((await read()).toString('utf8')).toBe(before.toString('utf8'));
    if (h.kind === 'postgres') {
      expect(await read()).toBe(before);
      await writer.tx(async (tx) => {
        await tx.catalog.updateProduct({ ...(await tx.catalog.productById(first.id))!, price: 7_000_00, updatedAt: T0 + 7 });
        expect(await read()).toBe(before);
      });
      const committed = await read();
      expect(committed).not.toBe(before);
      expect(committed.toString('utf8')).toBe(await expectedPage(writer.catalog, ids, args));
      expect(committed.toString('utf8')).not.toBe(before.toString('utf8'));
      before = committed;
    }

    // A reset empties the catalog (the same store and credential made again: no products).
    await admin.reset();
    const store = await writer.stores.byId(storeId);
    expect(store).toBeUndefined();
    await writer.stores.insert({ id: storeId, slug: 'otra', name: 'Otra', switchOn: true, paymentMethods: ['cash'] as never, fulfillmentTypes: ['pickup'] }, T0);
    await writer.integrations.insert({ id: integrationId, storeId, system: 'erp-de-prueba', scopes: [...SCOPES], settings: integrationSettings.parse({}) }, T0);
    await writer.credentials.insert('svk_pages', integrationId, digest, T0);
    const empty = await read();
    expect(JSON.parse(empty.toString('utf8'))).toEqual({ data: [], next_cursor: null });
    // A restore brings back the catalog as it was saved, not the page kept since.
    await admin.restore(saved.dumps);
    const restored = await read();
    expect(restored.toString('utf8')).toBe(saved.body);
    expect(restored.toString('utf8')).not.toBe(before.toString('utf8'));
    if (h.kind === 'postgres') expect(await read()).toBe(restored);
  });
});
