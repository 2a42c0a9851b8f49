import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeCache } from '../../../../emulator/adapters/sqlite/change-cache.js';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { makeStore, product, withCategory } from '../../../helpers/catalog.js';

// GET /catalog/products keeps each page's text until the database changes (emulator/adapters/sqlite/product-page.ts).
// The clock is manual and never moves: every change happens in the same millisecond as the read
// before it, so nothing may depend on updated_at to notice a change.
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu);
  for (let i = 0; i < 5; i++) await emu.api('PUT', `/catalog/products/P-${i}`, { body: product({ name: `Producto ${i}`, price: String(1000 + i) }) });
});
afterAll(() => emu.close());

const list = async (query = 'limit=3', credential?: string) => {
  const res = await emu.api('GET', `/catalog/products?${query}`, { credential });
  expect(res.status).toBe(200);
  return res.body;
};

describe('the kept products page', () => {
  it('answers a repeated read with the same body and headers', async () => {
    const a = await emu.api('GET', '/catalog/products?limit=3');
    const b = await emu.api('GET', '/catalog/products?limit=3');
    expect(JSON.stringify(b.body)).toBe(JSON.stringify(a.body));
    expect(b.headers.get('content-type')).toBe(a.headers.get('content-type'));
    expect(b.headers.get('content-length')).toBe(a.headers.get('content-length'));
  });

  it('lists a price changed in the same millisecond as the read before', async () => {
    const price = async () => (await list('limit=50')).data.find((p: any) => p.external_id === 'P-0').price;
    expect(await price()).toBe('1000');
    expect((await emu.api('PATCH', '/catalog/products/P-0', { body: { price: '1500' } })).status).toBe(200);
    expect(await price()).toBe('1500');
  });

  it('lists a new product and drops a deactivated one from an active=true page at once', async () => {
    const names = async () => (await list('limit=50&active=true')).data.map((p: any) => p.external_id);
    expect(await names()).not.toContain('P-new');
    await emu.api('PUT', '/catalog/products/P-new', { body: product() });
    expect(await names()).toContain('P-new');
    await emu.api('DELETE', '/catalog/products/P-new');
    expect(await names()).not.toContain('P-new');
  });

  it('keeps pages of different queries apart (limit, cursor, filters)', async () => {
    const first = await list('limit=2');
    const second = await list(`limit=2&cursor=${first.next_cursor}`);
    expect(first.data).toHaveLength(2);
    expect(second.data[0].id).not.toBe(first.data[0].id);
    expect((await list('limit=50&category_external_id=NOPE')).data).toEqual([]);
    expect((await list('limit=50&category_external_id=CAT-1')).data.length).toBeGreaterThan(2);
  });

  it("never answers another store's page from the kept one", async () => {
    expect((await list('limit=50')).data.length).toBeGreaterThan(0);
    const other = await makeStore(emu);
    expect((await emu.api('GET', '/me', { credential: other.credential })).status).toBe(200);
    // The same query right after the seeded store's read, nothing written in between.
    expect((await list('limit=50')).data.length).toBeGreaterThan(0);
    expect((await list('limit=50', other.credential)).data).toEqual([]);
  });
});

describe('ChangeCache.set', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (n INTEGER)');

  it('keeps the values computed after a miss', () => {
    const cache = new ChangeCache<string>(db);
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, undefined]);
    cache.set('a', '1');
    cache.set('b', '2');
    expect([cache.get('a'), cache.get('b')]).toEqual(['1', '2']);
  });

  it('keeps nothing when the database changed since the miss, and a write empties the cache', () => {
    const cache = new ChangeCache<string>(db);
    cache.get('a');
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(cache.set('a', 'stale')).toBe('stale');
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'fresh');
    expect(cache.get('a')).toBe('fresh');
    db.prepare('UPDATE t SET n = n + 1').run();
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps nothing inside an open transaction', () => {
    const cache = new ChangeCache<string>(db);
    cache.get('a');
    db.transaction(() => cache.set('a', 'inside'))();
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('ChangeCache that keeps a value on its second computation', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (n INTEGER)');

  it('keeps a value only once it was computed twice with no write in between', () => {
    const cache = new ChangeCache<string>(db, 10, true);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'first');
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'second');
    expect(cache.get('a')).toBe('second');
  });

  it('starts counting again after a write', () => {
    const cache = new ChangeCache<string>(db, 10, true);
    cache.get('a');
    cache.set('a', 'before');
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'after');
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'again');
    expect(cache.get('a')).toBe('again');
  });
});
