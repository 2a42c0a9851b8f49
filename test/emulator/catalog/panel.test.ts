import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { makeStore, product, withCategory } from '../../helpers/catalog.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu, 'CAT-1');
});
afterAll(() => emu.close());

const panelProduct = async (body: Record<string, unknown> = {}, storeId = emu.test.store_id) =>
  emu.control('POST', `/stores/${storeId}/products`, { name: 'Promo 2x1', price: '30000', ...body });
const byId = async (id: string) => (await emu.api('GET', '/catalog/products?limit=200')).body.data.find((p: any) => p.id === id);

describe('POST /_emulator/stores/{store_id}/products', () => {
  it('answers 201 with a panel product (external_id null) that GET /catalog/products lists', async () => {
    const res = await panelProduct({ description: 'Solo hoy' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ id: expect.stringMatching(/^prd_/), external_id: null, name: 'Promo 2x1', price: '30000', description: 'Solo hoy', active: true });
    expect(await byId(res.body.data.id)).toMatchObject({ external_id: null, category_external_id: null });
  });

  it('puts it in the category named by id, by external code or by name, creating a named one when missing', async () => {
    const cats = (await emu.api('GET', '/catalog/categories')).body.data;
    const cat1 = cats.find((c: any) => c.external_id === 'CAT-1');
    expect((await panelProduct({ category_id: cat1.id })).body.data.category_id).toBe(cat1.id);
    expect((await panelProduct({ category_external_id: 'CAT-1' })).body.data.category_external_id).toBe('CAT-1');
    const named = await panelProduct({ category_name: 'Combos' });
    const again = await panelProduct({ category_name: 'Combos' });
    expect(again.body.data.category_id).toBe(named.body.data.category_id);
    const combos = (await emu.api('GET', '/catalog/categories')).body.data.find((c: any) => c.id === named.body.data.category_id);
    expect(combos).toMatchObject({ name: 'Combos', external_id: null, active: true });
  });

  it('answers 422 for an unknown category, a bad price and an unknown field, and 404 for an unknown store', async () => {
    expect((await panelProduct({ category_external_id: 'NOPE' })).body.error.details[0].field).toBe('category_external_id');
    expect((await panelProduct({ price: '1,5' })).body.error.details[0].field).toBe('price');
    expect((await panelProduct({ stock: 1 })).status).toBe(422);
    expect((await panelProduct({}, 'str_00000000000000000000000000')).status).toBe(404);
  });

  it('opens a store without products: accepting_orders becomes true', async () => {
    const fresh = await makeStore(emu);
    expect((await emu.api('GET', '/store', { credential: fresh.credential })).body.data.accepting_orders).toBe(false);
    await panelProduct({}, fresh.storeId);
    expect((await emu.api('GET', '/store', { credential: fresh.credential })).body.data.accepting_orders).toBe(true);
  });
});

describe('PATCH /_emulator/products/{product_id}', () => {
  it('changes a panel product and answers it', async () => {
    const made = (await panelProduct()).body.data;
    const res = await emu.control('PATCH', `/products/${made.id}`, { name: 'Promo 3x2', price: '45000.5', available: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Promo 3x2', price: '45000.50', available: false });
  });

  it('answers 403 field_not_managed to name or price of a product linked to an erp_managed integration, but changes its photo', async () => {
    const put = await emu.api('PUT', '/catalog/products/LOCKED', { body: product() });
    const id = put.body.data.id;
    const res = await emu.control('PATCH', `/products/${id}`, { price: '1' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('field_not_managed');
    const photo = await emu.control('PATCH', `/products/${id}`, { photo_url: 'https://cdn.example/panel.jpg' });
    expect(photo.status).toBe(200);
    expect(photo.body.data).toMatchObject({ image_url: 'https://cdn.example/panel.jpg', image: { status: 'ready', source: 'panel' } });
  });

  it('answers 404 for an unknown product', async () => {
    expect((await emu.control('PATCH', '/products/prd_00000000000000000000000000', { name: 'X' })).status).toBe(404);
  });
});

describe('link_to_id', () => {
  it('links a panel product to the external code instead of creating a duplicate (200 updated)', async () => {
    const made = (await panelProduct({ name: 'Hecho en el panel' })).body.data;
    const res = await emu.api('PUT', `/catalog/products/LINK-1?link_to_id=${made.id}`, { body: product({ name: 'Del ERP' }) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: made.id, external_id: 'LINK-1', result: 'updated' });
    expect(await byId(made.id)).toMatchObject({ external_id: 'LINK-1', name: 'Del ERP', category_external_id: 'CAT-1' });
    const again = await emu.api('PUT', `/catalog/products/LINK-1?link_to_id=${made.id}`, { body: product({ name: 'Del ERP' }) });
    expect(again.body.data).toEqual({ id: made.id, external_id: 'LINK-1', result: 'unchanged' });
    const total = (await emu.api('GET', '/catalog/products?limit=200')).body.data.filter((p: any) => p.external_id === 'LINK-1');
    expect(total).toHaveLength(1);
  });

  it('answers 409 already_linked when the product already has another external code', async () => {
    const made = (await panelProduct()).body.data;
    await emu.api('PUT', `/catalog/products/LINK-A?link_to_id=${made.id}`, { body: product() });
    const res = await emu.api('PUT', `/catalog/products/LINK-B?link_to_id=${made.id}`, { body: product() });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_linked');
  });

  it('answers 409 already_linked when the code already belongs to another product', async () => {
    await emu.api('PUT', '/catalog/products/LINK-TAKEN', { body: product() });
    const made = (await panelProduct()).body.data;
    const res = await emu.api('PUT', `/catalog/products/LINK-TAKEN?link_to_id=${made.id}`, { body: product() });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_linked');
    expect((await byId(made.id)).external_id).toBeNull();
  });

  it("answers 422 on link_to_id for an unknown id, another store's product and a malformed id", async () => {
    const other = await makeStore(emu);
    const foreign = (await panelProduct({}, other.storeId)).body.data;
    for (const id of ['prd_00000000000000000000000000', foreign.id, 'cat_123']) {
      const res = await emu.api('PUT', `/catalog/products/LINK-X?link_to_id=${id}`, { body: product() });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].field).toBe('link_to_id');
    }
    expect((await byId(foreign.id))).toBeUndefined();
  });
});
