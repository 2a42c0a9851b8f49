import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentProducts } from '../../../../emulator/catalog/present.js';
import type { ProductPageArgs, ProductView } from '../../../../emulator/catalog/repository.js';
import { sqliteDb, startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { product, withCategory } from '../../../helpers/catalog.js';

// The products page's text is written by SQLite's json_object around the parts formatted in JS
// (emulator/adapters/sqlite/product-page.ts): it must be JSON.stringify of presentProducts, byte for
// byte, whatever the stored text holds.
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu);
});
afterAll(() => emu.close());

const catalog = () => emu.running.emulator.env('test').store.catalog;
const db = () => sqliteDb(emu);

// The reference: the products read one by one through the repository and presented by
// presentProducts, listed with the page's filters written out again here (not taken from the code
// under test).
async function presented(ids: string[]): Promise<string> {
  const views: ProductView[] = [];
  for (const id of ids) views.push((await catalog().productViewById(id))!);
  return JSON.stringify(await presentProducts(catalog(), views));
}
const listProductIds = (args: ProductPageArgs): string[] =>
  db().prepare(
    `SELECT p.id FROM products p JOIN categories c ON c.id = p.category_id
     WHERE p.store_id = @storeId AND p.updated_at >= @since AND p.id > @after
       AND (@category IS NULL OR (c.integration_id = @integrationId AND c.external_id = @category)) AND (@active IS NULL OR p.active = @active)
     ORDER BY p.id LIMIT @limit`,
  ).pluck().all({
    storeId: args.storeId, since: args.since, after: args.after, limit: args.limit, integrationId: args.integrationId,
    category: args.categoryExternalId, active: args.active === null ? null : Number(args.active),
  }) as string[];

/** The page's body as the reference writes it: the presented products, then the cursor after the page's last. */
async function expectedBody(args: ProductPageArgs): Promise<string> {
  const ids = listProductIds({ ...args, limit: args.limit + 1 });
  const shown = ids.slice(0, args.limit);
  const next = ids.length > args.limit ? Buffer.from(shown.at(-1)!, 'utf8').toString('base64url') : null;
  return `{"data":${await presented(shown)},"next_cursor":${JSON.stringify(next)}}`;
}

const pageArgs = (extra: Partial<ProductPageArgs> = {}): ProductPageArgs => ({
  integrationId: emu.test.integration_id, storeId: emu.test.store_id, since: 0, after: '', limit: 10_000, categoryExternalId: null, active: null, ...extra,
});
/** The page's body as the storage writes it. */
const pageBody = async (args: ProductPageArgs) => (await catalog().productPage(args)).toString('utf8');

let every = '';
for (let c = 0; c < 0x100; c++) every += String.fromCharCode(c);

/** A product through the API, then its stored text fields overwritten as given (the presenter's input, not the API's). */
async function stored(code: string, body: Record<string, unknown>, raw: Record<string, unknown> = {}): Promise<string> {
  const res = await emu.api('PUT', `/catalog/products/${code}`, { body: product(body) });
  expect(res.status).toBeLessThan(300);
  const id = res.body.data.id as string;
  for (const [column, value] of Object.entries(raw)) db().prepare(`UPDATE products SET ${column} = ? WHERE id = ?`).run(value, id);
  return id;
}

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
    // The page of this product alone: the products before it in id order are skipped by `after`.
    const before = listProductIds(pageArgs()).filter((other) => other < id).at(-1) ?? '';
    const args = pageArgs({ after: before, limit: 1 });
    const expected = await expectedBody(args);
    expect(JSON.parse(expected).data[0].id).toBe(id);
    expect(await pageBody(args)).toBe(expected);
    // Its text kept, then written into another page (another limit: not the kept body): the same bytes.
    expect(await pageBody({ ...args, limit: 2 })).toBe(await expectedBody({ ...args, limit: 2 }));
  });
});

describe('the products page body', () => {
  it.each([
    ['the first page', (): Partial<ProductPageArgs> => ({ limit: 3 })],
    ['every product', (): Partial<ProductPageArgs> => ({ limit: 200 })],
    ['a page after a cursor', (): Partial<ProductPageArgs> => ({ after: listProductIds(pageArgs({ limit: 2 }))[1], limit: 3 })],
    ['active ones of a category', (): Partial<ProductPageArgs> => ({ limit: 200, categoryExternalId: 'CAT-1', active: true })],
    ['an unknown category', (): Partial<ProductPageArgs> => ({ limit: 200, categoryExternalId: 'NO-SUCH' })],
    ['inactive ones', (): Partial<ProductPageArgs> => ({ limit: 200, active: false })],
    ['updated since a date to come', (): Partial<ProductPageArgs> => ({ since: Date.UTC(2100, 0, 1), limit: 200 })],
  ])('writes %s as the listed ids presented by presentProducts', async (_name, make) => {
    await stored('PAGE-A', { price: '1' });
    await stored('PAGE-B', { price: '2' }, { active: 0 });
    const args = pageArgs(make());
    expect(await pageBody(args)).toBe(await expectedBody(args));
  });
});
