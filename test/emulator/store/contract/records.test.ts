import { expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { describeAdapters } from './harness.js';
import { category, entrega, group, option, order, product, storeWithIntegration, T0, webhook } from './fixtures.js';

// The adapter contract: every repository gives back exactly what was written, on both adapters
// (amounts, times, nulls, flags, JSON texts with any character, bytes), and orders lists alike.

describeAdapters('records round-trip', (h) => {
  it('keeps stores, integrations and credentials exactly', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const store = await env.stores.byId(storeId);
    expect(store).toEqual({
      id: storeId, slug: expect.any(String), name: 'Tienda Ñandutí 🍕', switchOn: true, suspended: false,
      paymentMethods: ['cash', 'card_on_delivery'], fulfillmentTypes: ['delivery', 'pickup'], createdAt: T0, updatedAt: T0,
    });
    expect(await env.stores.slugTaken(store!.slug)).toBe(true);
    expect(await env.stores.slugTaken('nadie')).toBe(false);
    await env.stores.update({ ...store!, switchOn: false, suspended: true, paymentMethods: ['qr'] as never }, T0 + 5);
    expect(await env.stores.byId(storeId)).toMatchObject({ switchOn: false, suspended: true, paymentMethods: ['qr'], updatedAt: T0 + 5 });
    expect(await env.stores.nextOrderNumber(storeId)).toBe(1);
    expect(await env.stores.nextOrderNumber(storeId)).toBe(2);
    expect((await env.stores.all()).map((s) => s.id)).toEqual([storeId]);

    const integration = await env.integrations.byId(integrationId);
    expect(integration).toMatchObject({ id: integrationId, storeId, status: 'inactive', createdAt: T0 });
    expect(await env.integrations.activate(integrationId, T0 + 1)).toBe(true);
    expect(await env.integrations.activate(integrationId, T0 + 2)).toBe(false);
    await env.integrations.update({ ...integration!, status: 'suspended' as never, scopes: ['orders:read'] as never }, T0 + 3);
    expect(await env.integrations.byStore(storeId)).toEqual([{ ...integration, status: 'suspended', scopes: ['orders:read'], updatedAt: T0 + 3 }]);
    expect(await env.integrations.all()).toHaveLength(1);

    const digest = createHash('sha256').update('svs_secret').digest();
    await env.credentials.insert('svk_a', integrationId, digest, T0);
    await env.credentials.insert('svk_b', integrationId, Buffer.from([0, 255, 1, 128]), T0 + 1);
    const a = await env.credentials.byKey('svk_a');
    expect(Buffer.isBuffer(a!.secretSha256)).toBe(true);
    expect(a).toEqual({ keyId: 'svk_a', integrationId, secretSha256: digest, createdAt: T0, expiresAt: null, revokedAt: null });
    await env.credentials.expireOthers(integrationId, 'svk_b', T0 + 100);
    expect((await env.credentials.byKey('svk_a'))!.expiresAt).toBe(T0 + 100);
    expect(await env.credentials.revoke('svk_a', integrationId, T0 + 7)).toBe(true);
    expect(await env.credentials.revoke('svk_a', integrationId, T0 + 8)).toBe(false);
    expect((await env.credentials.notRevoked(integrationId)).map((c) => c.keyId)).toEqual(['svk_b']);
    expect((await env.credentials.byIntegration(integrationId)).map((c) => [c.keyId, c.revokedAt])).toEqual([['svk_a', T0 + 7], ['svk_b', null]]);
    expect((await env.credentials.byKey('svk_b'))!.secretSha256).toEqual(Buffer.from([0, 255, 1, 128]));
  });

  it('keeps one store token digest per store: a new one replaces it, and it finds its store', async () => {
    const env = h.storage.env('test');
    const { storeId } = await storeWithIntegration(env);
    const first = createHash('sha256').update('mks_first').digest();
    const second = createHash('sha256').update('mks_second').digest();
    expect(await env.stores.storeOfToken(first)).toBeUndefined();
    await env.stores.setToken(storeId, first, T0);
    expect(await env.stores.storeOfToken(first)).toBe(storeId);
    await env.stores.setToken(storeId, second, T0 + 1);
    expect(await env.stores.storeOfToken(first)).toBeUndefined();
    expect(await env.stores.storeOfToken(second)).toBe(storeId);
    // Each environment keeps its own: the other one knows no token.
    expect(await h.storage.env('live').stores.storeOfToken(second)).toBeUndefined();
    expect(await env.stores.dropToken(storeId)).toBe(true);
    expect(await env.stores.dropToken(storeId)).toBe(false);
    expect(await env.stores.storeOfToken(second)).toBeUndefined();
  });

  it('keeps the catalog exactly, and finds by code, name and id', async () => {
    const env = h.storage.env('live');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const c = category(storeId, integrationId, { position: null, sourceUpdatedAt: T0 - 5 });
    await env.catalog.insertCategory(c);
    expect(await env.catalog.categoryById(c.id)).toEqual(c);
    expect(await env.catalog.categoryByExternal(integrationId, c.externalId!)).toEqual(c);
    expect(await env.catalog.categoryByName(storeId, c.name)).toEqual(c);
    const p = product(storeId, integrationId, c.id, { description: 'línea 1\nlínea 2', position: 3, price: 9_007_199_254_740 });
    await env.catalog.insertProduct(p);
    expect(await env.catalog.productById(p.id)).toEqual(p);
    expect(await env.catalog.productViewById(p.id)).toEqual({ ...p, categoryExternalId: c.externalId });
    const g = group(p.id, integrationId, { minSelect: 1 });
    await env.catalog.insertGroup(g);
    const o1 = option(g, { position: 1 });
    const o2 = option(g, { position: 0, available: false, price: 0 });
    await env.catalog.insertOption(o1);
    await env.catalog.insertOption(o2);
    expect(await env.catalog.groupsOfProducts([p.id])).toEqual([g]);
    expect(await env.catalog.optionsOfProducts([p.id, 'prd_none'])).toEqual([o2, o1]);
    expect(await env.catalog.optionByExternal(integrationId, o1.externalId!)).toEqual(o1);
    expect(await env.catalog.groupByExternal(integrationId, g.externalId!)).toEqual(g);
    await env.catalog.patchOption({ id: o1.id, price: 77, available: false });
    expect(await env.catalog.optionById(o1.id)).toEqual({ ...o1, price: 77, available: false });
    await env.catalog.updateProduct({ ...p, name: 'Otra', active: false, updatedAt: T0 + 9 });
    expect(await env.catalog.productById(p.id)).toEqual({ ...p, name: 'Otra', active: false, updatedAt: T0 + 9 });
    await env.catalog.setImage(p.id, { photoUrl: 'https://img.example/a.png', photoSource: 'integration', imageStatus: 'ready', imageRequestedUrl: 'https://img.example/a.png', imageError: null }, T0 + 10);
    expect(await env.catalog.productById(p.id)).toMatchObject({ photoUrl: 'https://img.example/a.png', imageStatus: 'ready', updatedAt: T0 + 10 });
    expect(await env.catalog.activeProductsInCategory(c.id)).toBe(0);
    expect(await env.catalog.linkedProducts(integrationId)).toEqual([{ id: p.id, externalId: p.externalId, active: false }]);
    expect(await env.catalog.linkedCategories(integrationId)).toEqual([{ id: c.id, externalId: c.externalId, active: true }]);
    expect(await env.catalog.importableProduct(storeId, integrationId)).toBeUndefined(); // inactive, and its group needs a choice
    await env.catalog.updateProduct({ ...p, updatedAt: T0 + 11 });
    expect(await env.catalog.firstPublishedProduct(storeId, integrationId)).toEqual({ externalId: p.externalId, name: p.name });
    expect(await env.catalog.importableProduct(storeId, integrationId)).toBeUndefined();
    await env.catalog.updateGroup({ id: g.id, name: g.name, minSelect: 0, maxSelect: 1, position: 0 });
    expect(await env.catalog.importableProduct(storeId, integrationId)).toBe(p.id);
    await env.catalog.deleteOption(o1.id);
    await env.catalog.deleteOption(o2.id);
    await env.catalog.deleteGroup(g.id);
    expect(await env.catalog.groupsOfProducts([p.id])).toEqual([]);
    expect(await env.catalog.listCategories({ storeId, since: 0, after: '', limit: 10 })).toEqual([c]);
    expect(await env.catalog.listCategories({ storeId, since: T0 + 1, after: '', limit: 10 })).toEqual([]);
  });

  it('keeps orders and their history exactly, and lists them by filter', async () => {
    const env = h.storage.env('test');
    const { storeId } = await storeWithIntegration(env);
    const first = order(storeId, 1);
    const second = order(storeId, 2, { status: 'accepted', ackStatus: 'acknowledged', externalId: 'ERP-2', deliveryAddress: null, createdAt: T0 + 60_000,
      lastImportError: { code: 'product_unmapped', message: 'Producto "X" sin código', retryable: false, at: T0 } });
    await env.orders.insert(first);
    await env.orders.insert(second);
    expect(await env.orders.byId(first.id)).toEqual(first);
    expect(await env.orders.byId(second.id, { lock: true })).toEqual(second);
    expect(await env.orders.byExternalId(storeId, 'ERP-2')).toEqual(second);
    const base = { storeId, afterNumber: 0, limit: 10, statuses: null, ackStatus: null, createdSince: null, updatedSince: null };
    expect((await env.orders.list(base)).map((o) => o.number)).toEqual([1, 2]);
    expect((await env.orders.list({ ...base, statuses: ['accepted'] })).map((o) => o.number)).toEqual([2]);
    expect((await env.orders.list({ ...base, ackStatus: 'pending' })).map((o) => o.number)).toEqual([1]);
    expect((await env.orders.list({ ...base, createdSince: T0 + 1 })).map((o) => o.number)).toEqual([2]);
    expect((await env.orders.list({ ...base, afterNumber: 1, limit: 1 })).map((o) => o.number)).toEqual([2]);
    expect((await env.orders.notAcknowledged(storeId)).map((o) => o.number)).toEqual([1]);
    expect(await env.orders.lastNumber(storeId)).toBe(2);
    expect(await env.orders.lastNumber('str_none')).toBe(0);
    await env.orders.update({ ...first, status: 'rejected', statusReason: 'Sin stock', updatedAt: T0 + 5 });
    expect(await env.orders.byId(first.id)).toEqual({ ...first, status: 'rejected', statusReason: 'Sin stock', updatedAt: T0 + 5 });
    await env.orders.addHistory(first.id, { status: 'pending', at: T0, by: 'customer' as never, integrationId: null, reason: null });
    await env.orders.addHistory(first.id, { status: 'rejected', at: T0 + 5, by: 'integration' as never, integrationId: 'int_x', reason: 'Sin stock' });
    expect(await env.orders.history(first.id)).toEqual([
      { status: 'pending', at: T0, by: 'customer', integrationId: null, reason: null },
      { status: 'rejected', at: T0 + 5, by: 'integration', integrationId: 'int_x', reason: 'Sin stock' },
    ]);
  });

  it('keeps entregas, snapshots and webhooks exactly', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const e = entrega(storeId, integrationId, { orderId: 'ord_1' });
    await env.entregas.insert(e);
    expect(await env.entregas.byId(e.id)).toEqual(e);
    expect(await env.entregas.byId(e.id, { lock: true })).toEqual(e);
    expect(await env.entregas.byRequestKey(storeId, e.requestKey)).toEqual(e);
    expect(await env.entregas.byTrackingToken(e.trackingToken)).toEqual(e);
    expect(await env.entregas.openForOrder('ord_1')).toEqual(e);
    const changed = { ...e, status: 'cancelled' as const, cancelReason: 'Cliente ausente', returnFee: 5_000, history: [...e.history, { status: 'cancelled' as const, at: T0 + 1, note: 'x' }], updatedAt: T0 + 1 };
    await env.entregas.update(changed);
    expect(await env.entregas.byId(e.id)).toEqual(changed);
    expect(await env.entregas.openForOrder('ord_1')).toBeUndefined();

    const key = { integrationId, snapshotId: 'snap-1' };
    await env.snapshots.insert({ ...key, syncRunId: 'snc_1', status: 'open' as never, lastPart: 0, startedAt: T0 });
    await env.snapshots.finishPart(key, 1, 2);
    await env.snapshots.finishPart(key, 2, 1);
    await env.snapshots.addItems(key, [{ kind: 'product' as never, externalId: 'P-2' }, { kind: 'category' as never, externalId: 'C-1' }, { kind: 'product' as never, externalId: 'P-2' }]);
    await env.snapshots.savePart(key, 1, 'fp1', '{"a":1}');
    await env.snapshots.savePart(key, 1, 'fp1b', '{"a":2}');
    await env.snapshots.close(key, 'completed' as never, 3, null);
    expect(await env.snapshots.get(key, { lock: true })).toEqual({ ...key, syncRunId: 'snc_1', status: 'completed', lastPart: 2, failed: 3, deactivated: 3, reason: null, startedAt: T0 });
    expect(await env.snapshots.items(key)).toEqual([{ kind: 'category', externalId: 'C-1' }, { kind: 'product', externalId: 'P-2' }]);
    expect(await env.snapshots.part(key, 1)).toEqual({ fingerprint: 'fp1b', response: '{"a":2}' });
    expect(await env.snapshots.part(key, 2)).toBeUndefined();

    const w = webhook(storeId, integrationId);
    await env.webhooks.save(w);
    expect(await env.webhooks.get(integrationId)).toEqual(w);
    await env.webhooks.save({ ...w, paused: true, pausedReason: 'failing', failingSince: T0 - 1, previousSecret: 'whsec_old', previousExpiresAt: T0 + 1, updatedAt: T0 + 2, createdAt: 0 });
    expect(await env.webhooks.get(integrationId)).toEqual({ ...w, paused: true, pausedReason: 'failing', failingSince: T0 - 1, previousSecret: 'whsec_old', previousExpiresAt: T0 + 1, updatedAt: T0 + 2 });
  });
});
