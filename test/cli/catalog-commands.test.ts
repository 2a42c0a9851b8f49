import { describe, expect, it } from 'vitest';
import { catalogOf, jsonOut, useCatalogRig } from '../helpers/catalog-cli.js';

const rig = useCatalogRig();

const product = async (code: string) => (await catalogOf(rig.emu)).products.find((p) => p.external_id === code);

describe('catalog category set|delete', () => {
  it('creates and updates a category; --json prints the API data (the upsert result)', async () => {
    const created = await rig.run(['catalog', 'category', 'set', 'BEB', '--name', 'Bebidas', '--position', '60', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(jsonOut(created)).toMatchObject({ external_id: 'BEB', result: 'created', id: expect.stringMatching(/^cat_/) });
    const again = await rig.run(['catalog', 'category', 'set', 'BEB', '--name', 'Bebidas frías']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^category BEB: updated \(cat_[0-9A-Z]{26}\)\n$/);
    expect((await catalogOf(rig.emu)).categories.find((c) => c.external_id === 'BEB')).toMatchObject({ name: 'Bebidas frías', position: 60, active: true });
  });

  it('deactivates a category, and shows the API error (409 category_not_empty) with exit 1 while it has active products', async () => {
    await rig.run(['catalog', 'category', 'set', 'TMP', '--name', 'Temporal']);
    await rig.run(['catalog', 'product', 'set', 'TMP-1', '--name', 'Algo', '--category', 'TMP', '--price', '1000']);
    const refused = await rig.run(['catalog', 'category', 'delete', 'TMP']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(409 category_not_empty, request_id req_/);
    expect((await rig.run(['catalog', 'product', 'delete', 'TMP-1'])).code).toBe(0);
    const deleted = await rig.run(['catalog', 'category', 'delete', 'TMP', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(jsonOut(deleted).result).toBe('updated');
  });
});

describe('catalog product set|patch|delete and option patch', () => {
  it('creates a product from flags and replaces it from a --file', async () => {
    await rig.run(['catalog', 'category', 'set', 'LOM', '--name', 'Lomitos']);
    const made = await rig.run(['catalog', 'product', 'set', 'LOM-ARABE', '--name', 'Lomito árabe', '--category', 'LOM', '--price', '35000', '--position', '1', '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(jsonOut(made)).toMatchObject({ external_id: 'LOM-ARABE', result: 'created' });
    const file = rig.file('lomito.json', JSON.stringify({
      external_id: 'LOM-ARABE', name: 'Lomito árabe', category_external_id: 'LOM', price: '36000',
      option_groups: [{ external_id: 'LOM-ARABE.extras', name: 'Extras', max_select: 2, options: [{ external_id: 'LOM-ARABE.extras.huevo', name: 'Huevo', price: '3000' }] }],
    }));
    const replaced = await rig.run(['catalog', 'product', 'set', 'LOM-ARABE', '--file', file]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('product LOM-ARABE: updated');
    expect(await product('LOM-ARABE')).toMatchObject({ price: '36000', position: 1, option_groups: [{ external_id: 'LOM-ARABE.extras', options: [{ price: '3000' }] }] });
  });

  it('patches price and availability, patches an option, deactivates', async () => {
    const patched = await rig.run(['catalog', 'product', 'patch', 'LOM-ARABE', '--price', '37000', '--available', 'false', '--json']);
    expect(patched.code, patched.stderr).toBe(0);
    expect(jsonOut(patched)).toMatchObject({ result: 'updated' });
    const option = await rig.run(['catalog', 'option', 'patch', 'LOM-ARABE.extras.huevo', '--available', 'false', '--json']);
    expect(option.code, option.stderr).toBe(0);
    expect(jsonOut(option)).toMatchObject({ external_id: 'LOM-ARABE.extras.huevo', result: 'updated', id: expect.stringMatching(/^opt_/) });
    expect(await product('LOM-ARABE')).toMatchObject({ price: '37000', available: false, option_groups: [{ options: [{ available: false }] }] });
    const deleted = await rig.run(['catalog', 'product', 'delete', 'LOM-ARABE']);
    expect(deleted.code).toBe(0);
    expect((await product('LOM-ARABE'))?.active).toBe(false);
  });

  it('refuses bad input before any call: one line per field, exit 2', async () => {
    const before = await catalogOf(rig.emu);
    const price = await rig.run(['catalog', 'product', 'set', 'X-1', '--name', 'X', '--category', 'LOM', '--price', '35.000,00']);
    expect(price.code).toBe(2);
    expect(price.stderr).toContain('--price: Monto inválido');
    const missing = await rig.run(['catalog', 'product', 'set', 'X-1', '--name', 'X']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--category: El campo es obligatorio. [required]');
    expect(missing.stderr).toContain('--price: El campo es obligatorio. [required]');
    const nothing = await rig.run(['catalog', 'product', 'patch', 'X-1']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('Indique al menos uno de price, available o active.');
    const flag = await rig.run(['catalog', 'product', 'patch', 'X-1', '--available', 'maybe']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--available must be true or false.');
    const code = await rig.run(['catalog', 'category', 'delete', 'no spaces']);
    expect(code.code).toBe(2);
    expect(code.stderr).toContain('external_id: ');
    expect(await catalogOf(rig.emu)).toEqual(before);
  });

  it('refuses a product --file given with flags, naming another product, or with an unknown field: exit 2, nothing sent', async () => {
    const before = await catalogOf(rig.emu);
    const file = rig.file('other.json', JSON.stringify({ external_id: 'X-2', name: 'X', category_external_id: 'LOM', price: '1000' }));
    const both = await rig.run(['catalog', 'product', 'set', 'X-2', '--file', file, '--price', '2000']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give either --file or the product flags');
    const other = await rig.run(['catalog', 'product', 'set', 'X-1', '--file', file]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('external_id is "X-2" but the command names X-1');
    const unknown = await rig.run(['catalog', 'product', 'set', 'X-3', '--file', rig.file('x3.json', JSON.stringify({ name: 'X', category_external_id: 'LOM', price: '1000', toString: 1 }))]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^toString: .+ \[unknown_field\]$/m);
    expect(await catalogOf(rig.emu)).toEqual(before);
  });

  it('answers 404 not_found with exit 1 for an unknown code', async () => {
    const res = await rig.run(['catalog', 'option', 'patch', 'NOPE', '--price', '1000']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/404 not_found/);
  });
});
