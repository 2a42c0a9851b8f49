import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { advance, product, withCategory } from '../../helpers/catalog.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu, 'CAT-1');
  await withCategory(emu, 'CAT-2');
});
afterAll(() => emu.close());

const put = (code: string, body: unknown) => emu.api('PUT', `/catalog/products/${code}`, { body });
const get = async (code: string) => (await emu.api('GET', '/catalog/products?limit=200')).body.data.find((p: any) => p.external_id === code);
const fieldsOf = (res: { body: any }) => res.body.error.details.map((d: any) => `${d.field}:${d.code}`);

let groupSeq = 0;
/** A size group with codes of its own (group and option codes are unique per integration). */
const sizes = (options?: Record<string, unknown>[], code = `G-SIZE-${++groupSeq}`) => ({
  external_id: code, name: 'Tamaño', min_select: 1, max_select: 1, options: options ?? [{ external_id: `${code}-L`, name: 'Grande', price: '5000' }],
});

describe('PUT /catalog/products/{external_id}', () => {
  it('answers 201 created, then 200 unchanged for the same body, then 200 updated', async () => {
    const created = await put('P-1', product());
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.stringMatching(/^prd_[0-9A-Z]{26}$/), external_id: 'P-1', result: 'created' });
    const same = await put('P-1', product());
    expect(same.status).toBe(200);
    expect(same.body.data.result).toBe('unchanged');
    const changed = await put('P-1', product({ price: '8500' }));
    expect(changed.body.data).toEqual({ id: created.body.data.id, external_id: 'P-1', result: 'updated' });
  });

  it('lists the product with amounts as text and its defaults', async () => {
    await put('P-SHOW', product({ price: '15000.5', sku: 'SKU-9', option_groups: [sizes()] }));
    expect(await get('P-SHOW')).toMatchObject({
      external_id: 'P-SHOW', category_external_id: 'CAT-1', price: '15000.50', sku: 'SKU-9', description: null, active: true,
      available: true, position: null, image_url: null, image: { status: 'none', source: null, requested_url: null, error: null },
      option_groups: [{ external_id: expect.stringMatching(/^G-SIZE-/), min_select: 1, max_select: 1, options: [{ name: 'Grande', price: '5000', available: true }] }],
    });
  });

  it('puts omitted optional fields back to their defaults but keeps the position', async () => {
    await put('P-REPL', product({ description: 'Fría', sku: 'A1', available: false, active: false, position: 4, option_groups: [sizes()] }));
    const res = await put('P-REPL', product());
    expect(res.body.data.result).toBe('updated');
    expect(await get('P-REPL')).toMatchObject({ description: null, sku: null, available: true, active: true, position: 4, option_groups: [] });
  });

  it('moves a product to another category', async () => {
    await put('P-MOVE', product());
    await put('P-MOVE', product({ category_external_id: 'CAT-2' }));
    expect((await get('P-MOVE')).category_external_id).toBe('CAT-2');
  });

  it('keeps the ids of option groups and options matched by external_id, and removes those not sent', async () => {
    await put('P-OPT', product({
      option_groups: [sizes([{ external_id: 'OPT-A', name: 'A' }, { external_id: 'OPT-B', name: 'B' }], 'G-KEEP'), { external_id: 'G-X', name: 'Extra', options: [] }],
    }));
    const before = await get('P-OPT');
    const res = await put('P-OPT', product({ option_groups: [sizes([{ external_id: 'OPT-A', name: 'A', price: '100' }], 'G-KEEP')] }));
    expect(res.body.data.result).toBe('updated');
    const after = await get('P-OPT');
    expect(after.option_groups).toHaveLength(1);
    expect(after.option_groups[0].id).toBe(before.option_groups[0].id);
    expect(after.option_groups[0].options).toEqual([{ ...before.option_groups[0].options[0], price: '100' }]);
  });

  it('answers 200 ignored_stale and changes nothing for an older source_updated_at', async () => {
    await put('P-STALE', product({ source_updated_at: '2026-03-01T12:00:00-03:00' }));
    const stale = await put('P-STALE', product({ price: '1', source_updated_at: '2026-03-01T11:00:00-03:00' }));
    expect(stale.status).toBe(200);
    expect(stale.body.data.result).toBe('ignored_stale');
    expect((await get('P-STALE')).price).toBe('8000');
  });

  it('moves updated_at only when something changed', async () => {
    await put('P-TOUCH', product());
    const before = (await get('P-TOUCH')).updated_at;
    await advance(emu, 30);
    await put('P-TOUCH', product());
    expect((await get('P-TOUCH')).updated_at).toBe(before);
  });

  it('treats external codes as case-sensitive', async () => {
    const a = await put('P-case', product());
    const b = await put('P-CASE', product());
    expect(b.status).toBe(201);
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it('answers 422 on category_external_id for an unknown category', async () => {
    const res = await put('P-NOCAT', product({ category_external_id: 'NO-SUCH' }));
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['category_external_id:not_found']);
    expect(await get('P-NOCAT')).toBeUndefined();
  });

  it('answers 422 with required details for a body without its required fields', async () => {
    const res = await put('P-EMPTY', {});
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['name:required', 'category_external_id:required', 'price:required']));
  });

  it.each([['15.000'], ['15000,50'], ['1.234'], ['-5'], ['01']])('answers 422 on price for the amount %s', async (price) => {
    const res = await put('P-AMT', product({ price }));
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toMatchObject({ field: 'price', code: 'invalid' });
  });

  it('answers 422 for a price sent as a number', async () => {
    const res = await put('P-NUM', product({ price: 8000 }));
    expect(fieldsOf(res)).toEqual(['price:invalid_type']);
  });

  it('answers 422 with the dotted path of a nested option field', async () => {
    const res = await put('P-NEST', product({
      option_groups: [sizes(), { external_id: 'G-2', name: 'Salsa', options: [{ external_id: 'S-1', name: 'Ajo' }, { external_id: 'S-2', name: 'Mostaza', price: '1,5' }] }],
    }));
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['option_groups.1.options.1.price:invalid']);
  });

  it('answers 422 for an unknown field, also inside an option', async () => {
    const res = await put('P-UNK', product({ colour: 'red', option_groups: [sizes([{ external_id: 'U-1', name: 'X', stock: 3 }])] }));
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['colour:unknown_field', 'option_groups.0.options.0.stock:unknown_field']));
  });

  it('enforces the text lengths of name 150, description 1000, sku 64 and image_url 500', async () => {
    const res = await put('P-LEN', product({
      name: 'n'.repeat(151), description: 'd'.repeat(1001), sku: 's'.repeat(65), image_url: `https://img.example/${'i'.repeat(490)}`,
    }));
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['name:too_long', 'description:too_long', 'sku:too_long', 'image_url:too_long']));
    const edge = await put('P-LEN', product({ name: 'n'.repeat(150), description: 'd'.repeat(1000), sku: 's'.repeat(64) }));
    expect(edge.status).toBe(201);
  });

  it('answers 422 for min_select above max_select and for selections out of bounds', async () => {
    const res = await put('P-SEL', product({
      option_groups: [{ ...sizes(), min_select: 3, max_select: 2 }, { external_id: 'G-B', name: 'B', min_select: -1, max_select: 51 }],
    }));
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['option_groups.0.min_select:invalid', 'option_groups.1.min_select:too_small', 'option_groups.1.max_select:too_big']));
  });

  it('answers 422 for more than 20 option groups or more than 50 options in a group', async () => {
    const groups = Array.from({ length: 21 }, (_, i) => ({ external_id: `GG-${i}`, name: `G${i}` }));
    expect(fieldsOf(await put('P-MANY', product({ option_groups: groups })))).toEqual(['option_groups:too_many']);
    const options = Array.from({ length: 51 }, (_, i) => ({ external_id: `OO-${i}`, name: `O${i}` }));
    expect(fieldsOf(await put('P-MANY', product({ option_groups: [sizes(options)] })))).toEqual(['option_groups.0.options:too_many']);
    const fits = await put('P-MANY', product({ option_groups: [...groups.slice(0, 19), sizes(options.slice(0, 50))] }));
    expect(fits.status).toBe(201);
  });

  it('answers 422 for a group or option code repeated within the product', async () => {
    const res = await put('P-DUP', product({
      option_groups: [sizes([{ external_id: 'D-1', name: 'a' }], 'G-DUP'), { external_id: 'G-DUP', name: 'dup', options: [{ external_id: 'D-1', name: 'b' }] }],
    }));
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['option_groups.1.external_id:duplicate', 'option_groups.1.options.0.external_id:duplicate']));
  });

  it('answers 422 already_used for group and option codes that belong to another product', async () => {
    await put('P-OWNER', product({ option_groups: [{ external_id: 'G-OWN', name: 'G', options: [{ external_id: 'O-OWN', name: 'O' }] }] }));
    const res = await put('P-THIEF', product({
      option_groups: [{ external_id: 'G-MINE', name: 'G', options: [{ external_id: 'O-MINE', name: 'x' }, { external_id: 'O-OWN', name: 'O' }] }, { external_id: 'G-OWN', name: 'G2' }],
    }));
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['option_groups.0.options.1.external_id:already_used', 'option_groups.1.external_id:already_used']);
    expect(await get('P-THIEF')).toBeUndefined();
  });
});
