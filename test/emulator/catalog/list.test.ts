import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEmulator, TEST_STORE, type TestEmulator } from '../../helpers/emulator.js';
import { advance, makeStore, product, withCategory } from '../../helpers/catalog.js';
import type { SqliteStorage } from '../../../emulator/adapters/sqlite/index.js';

let emu: TestEmulator;
let midpoint: string;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu, 'L-A');
  await withCategory(emu, 'L-B');
  for (let i = 0; i < 5; i++) {
    const body = product({ category_external_id: i < 3 ? 'L-A' : 'L-B', active: i !== 1, option_groups: [{ external_id: `LG-${i}`, name: 'G', options: [{ external_id: `LO-${i}`, name: 'O' }] }] });
    await emu.api('PUT', `/catalog/products/L-${i}`, { body });
  }
  await advance(emu, 60);
  midpoint = (await emu.control('GET', '/clock')).body?.data?.now ?? new Date(emu.running.emulator.clock.now()).toISOString();
  await advance(emu, 1);
  await emu.api('PATCH', '/catalog/products/L-4', { body: { price: '1' } });
});
afterAll(() => emu.close());

const codes = (res: { body: any }) => res.body.data.map((p: any) => p.external_id).sort();

describe('GET /catalog/products', () => {
  it('lists every product of the store with its option groups and next_cursor null on the last page', async () => {
    const res = await emu.api('GET', '/catalog/products');
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(['L-0', 'L-1', 'L-2', 'L-3', 'L-4']);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.every((p: any) => p.option_groups.length === 1)).toBe(true);
  });

  it('filters by category_external_id and by active', async () => {
    expect(codes(await emu.api('GET', '/catalog/products?category_external_id=L-B'))).toEqual(['L-3', 'L-4']);
    expect(codes(await emu.api('GET', '/catalog/products?active=false'))).toEqual(['L-1']);
    expect(codes(await emu.api('GET', '/catalog/products?category_external_id=L-A&active=true'))).toEqual(['L-0', 'L-2']);
    expect(codes(await emu.api('GET', '/catalog/products?category_external_id=NO-SUCH'))).toEqual([]);
  });

  it('filters by updated_since', async () => {
    expect(codes(await emu.api('GET', `/catalog/products?updated_since=${encodeURIComponent(midpoint)}`))).toEqual(['L-4']);
  });

  it('pages with limit and cursor until next_cursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await emu.api('GET', `/catalog/products?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((p: any) => p.external_id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(['L-0', 'L-1', 'L-2', 'L-3', 'L-4']);
  });

  it('answers a page of exactly limit items with next_cursor null when nothing follows', async () => {
    const res = await emu.api('GET', '/catalog/products?limit=5');
    expect(res.body.data).toHaveLength(5);
    expect(res.body.next_cursor).toBeNull();
  });

  // The SQLite adapter's statements, spied by their SQL (PostgreSQL's page: store/contract/product-page.test.ts).
  it.skipIf(TEST_STORE === 'postgres')('reads option groups and options with one query each per page, not per product', async () => {
    // A new store's products were never listed, so the page below renders every one of them.
    const other = await makeStore(emu);
    await withCategory(emu, 'L-A', other.credential);
    for (let i = 0; i < 3; i++) {
      const body = product({ category_external_id: 'L-A', option_groups: [{ external_id: `NG-${i}`, name: 'G', options: [{ external_id: `NO-${i}`, name: 'O' }] }] });
      expect((await emu.api('PUT', `/catalog/products/N-${i}`, { body, credential: other.credential })).status).toBe(201);
    }
    // Every statement the request runs on the store's database, by its SQL (the SQLite adapter's page).
    const { db } = (emu.running.emulator.storage as SqliteStorage).env('test');
    const all = vi.spyOn(Object.getPrototypeOf(db.prepare('SELECT 1')) as { all(...args: unknown[]): unknown[] }, 'all');
    const reads = (table: string) => all.mock.contexts.filter((s) => new RegExp(`FROM ${table}\\b`).test((s as { source: string }).source)).length;
    const page = await emu.api('GET', '/catalog/products', { credential: other.credential });
    expect(page.body.data).toHaveLength(3);
    expect(reads('option_groups')).toBe(1);
    expect(reads('options')).toBe(1);
    vi.restoreAllMocks();
  });

  it('answers 422 for limit 201 and limit 0, and accepts limit 200', async () => {
    const over = await emu.api('GET', '/catalog/products?limit=201');
    expect(over.status).toBe(422);
    expect(over.body.error.details[0].field).toBe('limit');
    expect((await emu.api('GET', '/catalog/products?limit=0')).status).toBe(422);
    expect((await emu.api('GET', '/catalog/products?limit=200')).status).toBe(200);
  });

  it('answers 400 invalid_cursor for a cursor that does not decode', async () => {
    for (const cursor of ['garbage', 'cHJkX19fXw', Buffer.from('cat_01M80Y3N8HN4X9A2TT5FW91C68').toString('base64url')]) {
      const res = await emu.api('GET', `/catalog/products?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
  });

  it('answers 422 for active other than true or false, and an unknown query parameter', async () => {
    expect((await emu.api('GET', '/catalog/products?active=yes')).status).toBe(422);
    expect((await emu.api('GET', '/catalog/products?colour=red')).status).toBe(422);
  });

  it('uses a default page size of 50', async () => {
    const other = await makeStore(emu);
    await emu.api('PUT', '/catalog/categories/BIG', { body: { name: 'Muchos' }, credential: other.credential });
    for (let i = 0; i < 51; i++) {
      await emu.api('PUT', `/catalog/products/BIG-${i}`, { body: product({ category_external_id: 'BIG' }), credential: other.credential });
    }
    const res = await emu.api('GET', '/catalog/products', { credential: other.credential });
    expect(res.body.data).toHaveLength(50);
    expect(res.body.next_cursor).not.toBeNull();
    const rest = await emu.api('GET', `/catalog/products?cursor=${res.body.next_cursor}`, { credential: other.credential });
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
  });

  it("never lists another store's products", async () => {
    const res = await emu.api('GET', '/catalog/products?limit=200');
    expect(res.body.data.some((p: any) => p.external_id.startsWith('BIG-'))).toBe(false);
  });
});

describe('GET /catalog/categories', () => {
  it('lists the categories with updated_since, limit and cursor', async () => {
    const all = await emu.api('GET', '/catalog/categories');
    expect(all.body.data.map((c: any) => c.external_id).sort()).toEqual(['L-A', 'L-B']);
    const first = await emu.api('GET', '/catalog/categories?limit=1');
    expect(first.body.data).toHaveLength(1);
    const second = await emu.api('GET', `/catalog/categories?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    const since = await emu.api('GET', `/catalog/categories?updated_since=${encodeURIComponent(midpoint)}`);
    expect(since.body.data).toEqual([]);
  });

  it('answers 400 invalid_cursor for a product cursor and 422 for limit 201', async () => {
    const products = await emu.api('GET', '/catalog/products?limit=1');
    expect((await emu.api('GET', `/catalog/categories?cursor=${products.body.next_cursor}`)).status).toBe(400);
    expect((await emu.api('GET', '/catalog/categories?limit=201')).status).toBe(422);
  });
});
