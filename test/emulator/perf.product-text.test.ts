import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentProducts, productPageEntries } from '../../emulator/present/catalog.js';
import { PRODUCT_VIEW, type ProductView } from '../../emulator/data/catalog.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { product, withCategory } from '../helpers/catalog.js';

// The products page's text is written by SQLite's json_object around the parts formatted in JS:
// it must be JSON.stringify of presentProducts, byte for byte, whatever the stored text holds.
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu);
});
afterAll(() => emu.close());

const env = () => emu.running.emulator.envs.test;

// The reference: the products as rows, read with the page's filters written out again here (not
// taken from the code under test) and presented by presentProducts.
const productViews = (ids: string[]): ProductView[] =>
  env().db.prepare(`${PRODUCT_VIEW} WHERE p.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as ProductView[];
const listProductIds = (params: Parameters<typeof productPageEntries>[1]): string[] =>
  env().db.prepare(
    `SELECT p.id FROM products p JOIN categories c ON c.id = p.category_id
     WHERE p.store_id = @store_id AND p.updated_at >= @since AND p.id > @after
       AND (@category_id IS NULL OR p.category_id = @category_id) AND (@active IS NULL OR p.active = @active)
     ORDER BY p.id LIMIT @limit`,
  ).pluck().all(params) as string[];

let every = '';
for (let c = 0; c < 0x100; c++) every += String.fromCharCode(c);

/** A product through the API, then its stored text fields overwritten as given (the presenter's input, not the API's). */
async function stored(code: string, body: Record<string, unknown>, raw: Record<string, unknown> = {}): Promise<string> {
  const res = await emu.api('PUT', `/catalog/products/${code}`, { body: product(body) });
  expect(res.status).toBeLessThan(300);
  const id = res.body.data.id as string;
  for (const [column, value] of Object.entries(raw)) env().db.prepare(`UPDATE products SET ${column} = ? WHERE id = ?`).run(value, id);
  return id;
}

/** A product's text as the page writes it (and keeps it): through the page of its store. */
const pageText = (id: string) =>
  productPageEntries(env(), { store_id: emu.test.store_id, since: 0, after: '', limit: 10_000, category_id: null, active: null })
    .find((e) => e.id === id)?.bytes.toString('utf8');

describe('a product\'s text on the products page', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['a plain product', { price: '8000' }, {}],
    ['a price with cents and a description', { price: '1234.5', description: 'Con "comillas" y \\barra\\' }, {}],
    ['every character from U+0000 to U+00FF in name and description', {}, { name: every, description: every }],
    ['line and paragraph separators, an emoji, BOM and U+FFFF', {}, { name: 'a\u2028b\u2029c 🍔 \ufeff \uffff ñandutí €' }],
    ['nulls: description, sku, position, image fields, source_updated_at', {}, { description: null, sku: null, position: null, photo_url: null, source_updated_at: null }],
    ['inactive, unavailable, with image fields and a source date', { sku: 'SKU-1', position: 7 }, { active: 0, available: 0, photo_url: 'https://x.test/a.png', photo_source: 'url', image_status: 'failed', image_requested_url: 'https://x.test/a.png', image_error: 'no "image"', source_updated_at: Date.UTC(2024, 2, 31, 5, 0, 0) }],
    ['option groups and options, one option with cents', {
      option_groups: [
        { external_id: 'G-1', name: 'Extras "x"', min_select: 0, max_select: 2, options: [{ external_id: 'O-1', name: 'Queso', price: '5000' }, { external_id: 'O-2', name: 'Ají ñ', price: '0.5' }] },
        { external_id: 'G-2', name: 'Tamaño', min_select: 1, max_select: 1, options: [{ external_id: 'O-3', name: 'Grande', price: '0' }] },
      ],
    }, {}],
    ['dates on both sides of a past daylight-saving change', {}, { created_at: Date.UTC(2023, 9, 1, 3, 30), updated_at: Date.UTC(2024, 2, 24, 2, 59) }],
  ];

  it.each(cases)('writes %s as JSON.stringify of presentProducts', async (_name, body, raw) => {
    const code = `P-${Math.random().toString(36).slice(2, 10)}`;
    const id = await stored(code, body, raw);
    const rows = productViews([id]);
    const expected = JSON.stringify(presentProducts(env(), rows)[0]);
    expect(pageText(id)).toBe(expected);
    // Kept, then read again: the same bytes.
    expect(pageText(id)).toBe(expected);
  });
});

describe('productPageEntries', () => {
  const expected = (params: Parameters<typeof productPageEntries>[1]) => {
    const ids = listProductIds(params);
    const rows = productViews(ids);
    const byId = new Map(presentProducts(env(), rows).map((p) => [p.id, JSON.stringify(p)]));
    return { ids, texts: ids.map((id) => byId.get(id)) };
  };
  const store = () => emu.test.store_id;
  const categoryId = () => env().catalog.categoryByExternal.get(emu.test.integration_id, 'CAT-1')!.id;

  it.each([
    ['the first page', () => ({ after: '', since: 0, limit: 3, category_id: null, active: null })],
    ['every product', () => ({ after: '', since: 0, limit: 200, category_id: null, active: null })],
    ['a page after a cursor', () => ({ after: listProductIds({ store_id: store(), after: '', since: 0, limit: 2, category_id: null, active: null })[1], since: 0, limit: 3, category_id: null, active: null })],
    ['active ones of a category', () => ({ after: '', since: 0, limit: 200, category_id: categoryId(), active: 1 })],
    ['inactive ones', () => ({ after: '', since: 0, limit: 200, category_id: null, active: 0 })],
    ['updated since a date to come', () => ({ after: '', since: Date.UTC(2100, 0, 1), limit: 200, category_id: null, active: null })],
  ])('lists %s as listProductIds and presentProducts do', async (_name, make) => {
    await stored('PAGE-A', { price: '1' });
    await stored('PAGE-B', { price: '2' }, { active: 0 });
    const params = { store_id: store(), ...make() };
    const entries = productPageEntries(env(), params);
    expect({ ids: entries.map((e) => e.id), texts: entries.map((e) => e.bytes.toString('utf8')) }).toEqual(expected(params));
  });
});
