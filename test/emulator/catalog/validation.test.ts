import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { batch, upsertCategory } from '../../helpers/batch.js';
import { category, product, withCategory } from '../../helpers/catalog.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu.close());
beforeEach(async () => {
  await emu.control('POST', '/reset');
  await withCategory(emu, 'CAT-1');
});

const detailsOf = (res: { body: any }) => res.body.error.details.map((d: any) => [d.field, d.code]);

describe('image_url', () => {
  it.each([['http://[::1'], ['http://%zz/x.png'], ['http://a:99999/x.png'], ['http://:80/x.png'], ['ftp://cdn.example.com/x.png']])(
    'answers 422 invalid on image_url for %s',
    async (url) => {
      const res = await emu.api('PUT', '/catalog/products/SKU-1', { body: product({ image_url: url }) });
      expect(res.status).toBe(422);
      expect(detailsOf(res)).toEqual([['image_url', 'invalid']]);
    },
  );

  it('answers 422 too_long on image_url over 500 characters, and accepts a valid URL of 500', async () => {
    const prefix = 'https://cdn.example.com/';
    const long = await emu.api('PUT', '/catalog/products/SKU-1', { body: product({ image_url: prefix + 'a'.repeat(501 - prefix.length) }) });
    expect(detailsOf(long)).toEqual([['image_url', 'too_long']]);
    const fits = await emu.api('PUT', '/catalog/products/SKU-1', { body: product({ image_url: prefix + 'a'.repeat(500 - prefix.length) }) });
    expect(fits.status).toBe(201);
  });
});

describe('blank names', () => {
  it('answers 422 required on a category name of only spaces', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-2', { body: category('   ') });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([['name', 'required']]);
  });

  it('answers 422 required once (not twice) on an empty category name', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-2', { body: category('') });
    expect(detailsOf(res)).toEqual([['name', 'required']]);
  });

  it('answers 422 required on product, group and option names of only spaces or tabs', async () => {
    const res = await emu.api('PUT', '/catalog/products/SKU-1', {
      body: product({
        name: ' \t ',
        option_groups: [{ external_id: 'G-1', name: '  ', options: [{ external_id: 'O-1', name: '\u00a0 ' }] }],
      }),
    });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([
      ['name', 'required'],
      ['option_groups.0.name', 'required'],
      ['option_groups.0.options.0.name', 'required'],
    ]);
  });

  it('keeps a name with spaces around text as sent', async () => {
    expect((await emu.api('PUT', '/catalog/categories/CAT-2', { body: category(' Postres ') })).status).toBe(201);
    const list = await emu.api('GET', '/catalog/categories');
    expect(list.body.data.find((c: any) => c.external_id === 'CAT-2').name).toBe(' Postres ');
  });
});

describe('the limit query parameter', () => {
  it.each([['1e1'], ['0x5'], ['%205'], ['5.0'], ['05'], ['+5'], ['0'], ['201'], ['-1'], [''], ['99999999999999999999']])(
    'answers 422 on limit for limit=%s',
    async (limit) => {
      for (const path of ['/catalog/products', '/catalog/categories', '/orders', '/events']) {
        const res = await emu.api('GET', `${path}?limit=${limit}`);
        expect(res.status, path).toBe(422);
        expect(res.body.error.details.map((d: any) => d.field), path).toEqual(['limit']);
      }
    },
  );

  it.each([['1'], ['200'], ['37']])('accepts limit=%s', async (limit) => {
    for (const path of ['/catalog/products', '/catalog/categories', '/orders', '/events']) {
      expect((await emu.api('GET', `${path}?limit=${limit}`)).status, path).toBe(200);
    }
  });
});

describe('switching off a category that still has active products', () => {
  beforeEach(async () => {
    expect((await emu.api('PUT', '/catalog/products/SKU-1', { body: product() })).status).toBe(201);
  });

  it('answers 409 category_not_empty to PUT with active false, changing nothing', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-1', { body: category('Otro nombre', { active: false }) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('category_not_empty');
    const cat = (await emu.api('GET', '/catalog/categories')).body.data.find((c: any) => c.external_id === 'CAT-1');
    expect(cat).toMatchObject({ active: true, name: 'Bebidas' });
  });

  it('makes it the error of that batch operation only', async () => {
    const res = await batch(emu, { operations: [upsertCategory('CAT-1', 'Bebidas', { active: false }), upsertCategory('CAT-2')] });
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toEqual({ total: 2, succeeded: 1, failed: 1 });
    expect(res.body.data.results[0]).toMatchObject({ index: 0, result: 'error', error: { code: 'category_not_empty' } });
    const cat = (await emu.api('GET', '/catalog/categories')).body.data.find((c: any) => c.external_id === 'CAT-1');
    expect(cat.active).toBe(true);
  });

  it('switches it off once its products are inactive', async () => {
    expect((await emu.api('DELETE', '/catalog/products/SKU-1')).status).toBe(200);
    const res = await emu.api('PUT', '/catalog/categories/CAT-1', { body: category('Bebidas', { active: false }) });
    expect(res.status).toBe(200);
    expect(res.body.data.result).toBe('updated');
  });
});
