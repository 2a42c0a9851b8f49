import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { category, group, option, product, storeWithIntegration, T0 } from './fixtures.js';
import type { EnvStore, Repositories } from '../../../../emulator/store/port.js';
import { MAX_KEPT_ORDERABLE } from '../../../../emulator/adapters/postgres/orders.js';
import { productsWithOptions } from '../../../../emulator/catalog/repository.js';
import { integrationSettings, SCOPES } from '../../../../src/contract/store.js';

// issue 25, fourteenth step: a server database keeps each store's orderable product ids (the
// simulator's cart draws from them) and the products the cart read with their options, each with the
// store's catalog version, and the statement sends them again only when that version moved. So what
// is kept is answered exactly while nothing of the store's catalog changed: any committed write
// through any process, a reset, a restore is in the next read, and a unit of work sees its own
// catalog writes. The embedded database reads them each time.

/** The orderable ids as the records say (active, available, in an active category; panel: no external id). */
async function expected(r: Repositories, ids: string[], panelOnly = false): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const p = await r.catalog.productById(id);
    if (!p || !p.active || !p.available || (panelOnly && p.externalId !== null)) continue;
    if ((await r.catalog.categoryById(p.categoryId))?.active) out.push(id);
  }
  return out.sort();
}

describeAdapters('the cart\'s catalog reads a process keeps', (h) => {
  it('answers the kept ids while the catalog is unchanged, and every committed write through another process at the next read', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    // Writes go through another process on a server database (the embedded one has one process).
    const writer: EnvStore = h.kind === 'postgres' ? (await h.openAnother()).env('test') : env;
    const ids: string[] = [];
    const pizzas = category(storeId, integrationId);
    await writer.catalog.insertCategory(pizzas);
    const first = product(storeId, integrationId, pizzas.id);
    const panel = product(storeId, null, pizzas.id, { externalId: null, integrationId: null });
    for (const p of [first, panel]) {
      await writer.catalog.insertProduct(p);
      ids.push(p.id);
    }
    const before = { all: await env.orders.orderableProductIds(storeId), panel: await env.orders.orderableProductIds(storeId, true) };
    expect([...before.all].sort()).toEqual([first.id, panel.id].sort());
    expect(before.panel).toEqual([panel.id]);
    // Unchanged: the very ids kept (a server database sent none), each list on its own.
    if (h.kind === 'postgres') {
      expect(await env.orders.orderableProductIds(storeId)).toBe(before.all);
      expect(await env.orders.orderableProductIds(storeId, true)).toBe(before.panel);
      expect(Object.isFrozen(before.all)).toBe(true);
    }

    const update = async (id: string, over: Record<string, unknown>) =>
      writer.catalog.updateProduct({ ...(await writer.catalog.productById(id))!, ...over, updatedAt: T0 + 1 });
    const second = product(storeId, integrationId, pizzas.id, { name: 'Napolitana' });
    const drinks = category(storeId, integrationId, { name: 'Bebidas' });
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['a product sold out', () => update(first.id, { available: false })],
      ['a product back', () => update(first.id, { available: true })],
      ['a panel product deactivated', () => update(panel.id, { active: false })],
      ['a new product', async () => {
        ids.push(second.id);
        await writer.catalog.insertProduct(second);
      }],
      ['a product linked to the ERP (no longer a panel one)', async () => {
        await update(panel.id, { active: true });
        await update(panel.id, { externalId: 'EXT-PANEL', integrationId });
      }],
      ['a product unlinked (a panel one again)', () => update(second.id, { externalId: null, integrationId: null })],
      ['a category deactivated', () => writer.catalog.updateCategory({ ...pizzas, active: false, updatedAt: T0 + 2 })],
      ['a new category with a product', async () => {
        await writer.catalog.insertCategory(drinks);
        const cola = product(storeId, null, drinks.id, { externalId: null, integrationId: null, name: 'Cola' });
        ids.push(cola.id);
        await writer.catalog.insertProduct(cola);
      }],
      ['a category back', () => writer.catalog.updateCategory({ ...pizzas, active: true, updatedAt: T0 + 3 })],
      ['a unit of work', () => writer.tx(async (tx) => {
        await tx.catalog.updateProduct({ ...(await tx.catalog.productById(first.id))!, active: false, updatedAt: T0 + 4 });
        await tx.catalog.updateProduct({ ...(await tx.catalog.productById(second.id))!, available: false, updatedAt: T0 + 4 });
      })],
    ];
    let last = before;
    for (const [what, write] of writes) {
      await write();
      const after = { all: await env.orders.orderableProductIds(storeId), panel: await env.orders.orderableProductIds(storeId, true) };
      expect([...after.all].sort(), what).toEqual(await expected(writer, ids));
      expect([...after.panel].sort(), what).toEqual(await expected(writer, ids, true));
      if (h.kind === 'postgres') {
        expect(after.all, what).not.toBe(last.all);
        expect(await env.orders.orderableProductIds(storeId), what).toBe(after.all);
      }
      last = after;
    }

    // Another store's catalog written: this store's kept ids hold.
    const other = await storeWithIntegration(writer);
    const elsewhere = category(other.storeId, other.integrationId);
    await writer.catalog.insertCategory(elsewhere);
    await writer.catalog.insertProduct(product(other.storeId, other.integrationId, elsewhere.id));
    if (h.kind === 'postgres') expect(await env.orders.orderableProductIds(storeId)).toBe(last.all);

    // A reset empties the catalog; the same store made again with another product is read anew.
    const admin = h.kind === 'postgres' ? (await h.openAnother()).admin : h.storage.admin;
    const saved = { test: await admin.dump('test'), live: await admin.dump('live') };
    await admin.reset();
    await writer.stores.insert({ id: storeId, slug: 'otra', name: 'Otra', switchOn: true, paymentMethods: ['cash'] as never, fulfillmentTypes: ['pickup'] }, T0);
    expect(await env.orders.orderableProductIds(storeId)).toEqual([]);
    await writer.integrations.insert({ id: integrationId, storeId, system: 'erp-de-prueba', scopes: [...SCOPES], settings: integrationSettings.parse({}) }, T0);
    await writer.catalog.insertCategory(pizzas);
    const fresh = product(storeId, integrationId, pizzas.id, { name: 'Fugazzeta' });
    await writer.catalog.insertProduct(fresh);
    expect(await env.orders.orderableProductIds(storeId)).toEqual([fresh.id]);
    // A restore brings back the catalog as it was saved, not the ids kept since.
    await admin.restore(saved);
    expect([...(await env.orders.orderableProductIds(storeId))].sort()).toEqual([...last.all].sort());
  });

  it('lets a unit of work see its own catalog writes, and keeps nothing of them', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const c = category(storeId, integrationId);
    await env.catalog.insertCategory(c);
    const first = product(storeId, integrationId, c.id);
    await env.catalog.insertProduct(first);
    const kept = await env.orders.orderableProductIds(storeId);
    expect(kept).toEqual([first.id]);
    const added = product(storeId, null, c.id, { externalId: null, integrationId: null });
    // Rolled back: inside, its own writes; after, the catalog (and the ids kept) as before.
    await expect(env.tx(async (tx) => {
      expect(await tx.orders.orderableProductIds(storeId)).toEqual([first.id]);
      await tx.catalog.insertProduct(added);
      expect([...(await tx.orders.orderableProductIds(storeId))].sort()).toEqual([first.id, added.id].sort());
      expect(await tx.orders.orderableProductIds(storeId, true)).toEqual([added.id]);
      await tx.catalog.updateProduct({ ...first, available: false, updatedAt: T0 + 1 });
      expect(await tx.orders.orderableProductIds(storeId)).toEqual([added.id]);
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(await env.orders.orderableProductIds(storeId)).toEqual([first.id]);
    expect(await env.orders.orderableProductIds(storeId, true)).toEqual([]);
    if (h.kind === 'postgres') expect(await env.orders.orderableProductIds(storeId)).toBe(kept);
    // Committed: in the next read anywhere.
    await env.tx(async (tx) => {
      await tx.catalog.insertProduct(added);
      expect([...(await tx.orders.orderableProductIds(storeId))].sort()).toEqual([first.id, added.id].sort());
    });
    expect([...(await env.orders.orderableProductIds(storeId))].sort()).toEqual([first.id, added.id].sort());
    expect(await env.orders.orderableProductIds(storeId, true)).toEqual([added.id]);
  });

  it('keeps a bounded number of lists: past the bound, everything is read again', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const c = category(storeId, integrationId);
    await env.catalog.insertCategory(c);
    const p = product(storeId, integrationId, c.id);
    await env.catalog.insertProduct(p);
    const first = await env.orders.orderableProductIds(storeId);
    if (h.kind === 'postgres') expect(await env.orders.orderableProductIds(storeId)).toBe(first);
    // As many other stores' lists as the bound (stores with no catalog: an empty list each).
    for (let i = 0; i < MAX_KEPT_ORDERABLE; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => env.orders.orderableProductIds(`sto_none_${i + j}`)));
    }
    const again = await env.orders.orderableProductIds(storeId);
    expect(again).toEqual([p.id]);
    expect(again).not.toBe(first);
  });

  it('answers the kept products with their options while the catalog is unchanged, and every write at the next read', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const writer: EnvStore = h.kind === 'postgres' ? (await h.openAnother()).env('test') : env;
    const c = category(storeId, integrationId);
    await writer.catalog.insertCategory(c);
    const burger = product(storeId, integrationId, c.id, { name: 'Hamburguesa' });
    const cola = product(storeId, null, c.id, { externalId: null, integrationId: null, name: 'Cola' });
    for (const p of [burger, cola]) await writer.catalog.insertProduct(p);
    const sizes = group(burger.id, integrationId, { minSelect: 1, maxSelect: 1 });
    await writer.catalog.insertGroup(sizes);
    const big = option(sizes, { price: 5_000_00 });
    await writer.catalog.insertOption(big);
    const ids = [burger.id, cola.id];
    /** The products as the separate reads give them. */
    const expected = async () => {
      const out = [];
      for (const id of ids) {
        out.push({ product: await writer.catalog.productById(id), groups: await writer.catalog.groupsOfProducts([id]), options: await writer.catalog.optionsOfProducts([id]) });
      }
      return out;
    };
    const before = await productsWithOptions(env.catalog, ids);
    expect(before).toEqual(await expected());
    if (h.kind === 'postgres') {
      const again = await productsWithOptions(env.catalog, [cola.id, burger.id]);
      expect(again[0]).toBe(before[1]);
      expect(again[1]).toBe(before[0]);
      expect(Object.isFrozen(before[0]!.options[0])).toBe(true);
    }
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['an option\'s price', () => writer.catalog.patchOption({ id: big.id, price: 6_000_00, available: true })],
      ['an option sold out', () => writer.catalog.patchOption({ id: big.id, price: 6_000_00, available: false })],
      ['a product\'s price', async () => writer.catalog.updateProduct({ ...(await writer.catalog.productById(burger.id))!, price: 40_000_00, updatedAt: T0 + 1 })],
      ['a group\'s bounds', () => writer.catalog.updateGroup({ id: sizes.id, name: 'Tamaño', minSelect: 0, maxSelect: 2, position: 0 })],
      ['a new option', () => writer.catalog.insertOption(option(sizes, { name: 'Chica', position: 2 }))],
      ['another product of the store', async () => writer.catalog.updateProduct({ ...(await writer.catalog.productById(cola.id))!, name: 'Cola Zero', updatedAt: T0 + 2 })],
      ['an option deleted', () => writer.catalog.deleteOption(big.id)],
    ];
    let last = before;
    for (const [what, write] of writes) {
      await write();
      const after = await productsWithOptions(env.catalog, ids);
      expect(after, what).toEqual(await expected());
      if (h.kind === 'postgres') {
        expect(after[0], what).not.toBe(last[0]);
        expect((await productsWithOptions(env.catalog, ids))[0], what).toBe(after[0]);
      }
      last = after;
    }
    // Another store's catalog written: the kept products hold.
    const other = await storeWithIntegration(writer);
    await writer.catalog.insertCategory(category(other.storeId, other.integrationId));
    if (h.kind === 'postgres') expect((await productsWithOptions(env.catalog, ids))[0]).toBe(last[0]);

    // A unit of work sees its own writes; rolled back, the products (and those kept) are as before.
    await expect(env.tx(async (tx) => {
      await tx.catalog.updateProduct({ ...(await tx.catalog.productById(burger.id))!, price: 1_00, updatedAt: T0 + 3 });
      expect((await productsWithOptions(tx.catalog, [burger.id]))[0]!.product.price).toBe(1_00);
      throw new Error('refused');
    })).rejects.toThrow('refused');
    const unchanged = await productsWithOptions(env.catalog, ids);
    expect(unchanged).toEqual(await expected());
    if (h.kind === 'postgres') expect(unchanged[0]).toBe(last[0]);

    // A reset empties the catalog: nothing is found; a restore brings the catalog back as saved.
    const admin = h.kind === 'postgres' ? (await h.openAnother()).admin : h.storage.admin;
    const saved = { test: await admin.dump('test'), live: await admin.dump('live') };
    const restoredExpected = await expected();
    await admin.reset();
    expect(await productsWithOptions(env.catalog, ids)).toEqual([]);
    await admin.restore(saved);
    const restored = await productsWithOptions(env.catalog, ids);
    expect(restored).toEqual(restoredExpected);
    if (h.kind === 'postgres') expect(restored[0]).not.toBe(last[0]);
  });
});
