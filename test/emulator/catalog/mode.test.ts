import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { makeStore, product, withCategory } from '../../helpers/catalog.js';
import { eventsOf } from '../../helpers/stores.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu, 'CAT-1');
  await emu.api('PUT', '/catalog/products/MINE', {
    body: product({ option_groups: [{ external_id: 'MINE-G', name: 'G', options: [{ external_id: 'MINE-O', name: 'O' }] }] }),
  });
});
afterAll(() => emu.close());

describe('catalog_mode manual', () => {
  it('answers 403 field_not_managed to every catalog write and changes nothing', async () => {
    const manual = await makeStore(emu, { catalog_mode: 'manual' });
    const as = { credential: manual.credential };
    const calls: [string, string, unknown?][] = [
      ['PUT', '/catalog/categories/CAT-1', { name: 'X' }],
      ['DELETE', '/catalog/categories/CAT-1'],
      ['PUT', '/catalog/products/P-1', product()],
      ['PATCH', '/catalog/products/P-1', { price: '1' }],
      ['DELETE', '/catalog/products/P-1'],
      ['PATCH', '/catalog/options/O-1', { available: false }],
    ];
    for (const [method, path, body] of calls) {
      const res = await emu.api(method, path, { ...as, body });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 403, 'field_not_managed']);
    }
    expect((await emu.api('GET', '/catalog/categories', as)).body.data).toEqual([]);
  });

  it('answers 403 field_not_managed before looking at an invalid body', async () => {
    const manual = await makeStore(emu, { catalog_mode: 'manual' });
    const res = await emu.api('PUT', '/catalog/products/P-1', { credential: manual.credential, body: { name: '' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('field_not_managed');
  });

  it('still lets a manual integration read the catalog', async () => {
    const manual = await makeStore(emu, { catalog_mode: 'manual' });
    expect((await emu.api('GET', '/catalog/products', { credential: manual.credential })).status).toBe(200);
  });
});

describe('another store', () => {
  it("answers 404 for another store's product, option and category codes", async () => {
    const other = await makeStore(emu);
    const as = { credential: other.credential };
    expect((await emu.api('PATCH', '/catalog/products/MINE', { ...as, body: { price: '1' } })).status).toBe(404);
    expect((await emu.api('DELETE', '/catalog/products/MINE', as)).status).toBe(404);
    expect((await emu.api('PATCH', '/catalog/options/MINE-O', { ...as, body: { price: '1' } })).status).toBe(404);
    expect((await emu.api('DELETE', '/catalog/categories/CAT-1', as)).status).toBe(404);
    const mine = (await emu.api('GET', '/catalog/products')).body.data.find((p: any) => p.external_id === 'MINE');
    expect(mine.price).toBe('8000');
    expect(mine.active).toBe(true);
  });

  it('keeps external codes per integration: the same code in two stores is two products', async () => {
    const other = await makeStore(emu);
    const as = { credential: other.credential };
    await withCategory(emu, 'CAT-1', other.credential);
    const res = await emu.api('PUT', '/catalog/products/MINE', { ...as, body: product() });
    expect(res.status).toBe(201);
  });

  it('answers 422 on category_external_id for a category code that only another store has', async () => {
    const other = await makeStore(emu);
    const res = await emu.api('PUT', '/catalog/products/X', { credential: other.credential, body: product() });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe('category_external_id');
  });
});

describe('store accepting_orders', () => {
  it('becomes true once the store has an active product, with store.updated, and false when it is deactivated', async () => {
    const fresh = await makeStore(emu);
    const as = { credential: fresh.credential };
    expect((await emu.api('GET', '/store', as)).body.data.accepting_orders).toBe(false);
    await withCategory(emu, 'CAT-1', fresh.credential);
    await emu.api('PUT', '/catalog/products/FIRST', { ...as, body: product() });
    expect((await emu.api('GET', '/store', as)).body.data.accepting_orders).toBe(true);
    await emu.api('DELETE', '/catalog/products/FIRST', as);
    expect((await emu.api('GET', '/store', as)).body.data.accepting_orders).toBe(false);
    const events = (await eventsOf(emu, 'test', fresh.integrationId))
      .filter((e) => e.type === 'store.updated')
      .map((e) => (e.data.store as { accepting_orders: boolean }).accepting_orders);
    expect(events).toEqual([true, false]);
  });
});

describe('scopes', () => {
  it('answers 403 insufficient_scope to a write without catalog:write', async () => {
    const reader = await makeStore(emu, {}, ['catalog:read']);
    const put = await emu.api('PUT', '/catalog/categories/C', { credential: reader.credential, body: { name: 'X' } });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe('insufficient_scope');
  });
});
