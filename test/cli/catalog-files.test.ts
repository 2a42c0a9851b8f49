import { describe, expect, it } from 'vitest';
import { catalogOf, restaurant, RESTAURANT_CSV, useCatalogRig } from '../helpers/catalog-cli.js';
import { readFileSync } from 'node:fs';

const rig = useCatalogRig();

/** Runs a sync of a file that must be refused: exit 2, nothing sent. */
async function refused(file: string, args: string[] = []) {
  const before = await catalogOf(rig.emu);
  const run = await rig.run(['catalog', 'sync', file, ...args]);
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(await catalogOf(rig.emu)).toEqual(before);
  return run.stderr;
}

describe('catalog sync refuses an invalid file before sending anything', () => {
  it('reports each bad CSV cell as file:line, row and field, exits 2 and leaves the catalog unchanged', async () => {
    const lines = readFileSync(RESTAURANT_CSV, 'utf8').trimEnd().split('\n');
    const napo = lines.findIndex((l) => l.startsWith('PIZ-NAPO,'));
    const agua = lines.findIndex((l) => l.startsWith('BEB-AGUA,'));
    lines[napo] = lines[napo].replace(',60000,', ',60.000,');
    lines[agua] = lines[agua].replace('BEB-AGUA,Agua mineral sin gas 500 ml,', 'BEB-AGUA,,').replace(',3,true,true,', ',3,maybe,true,');
    const file = rig.file('bad.csv', `${lines.join('\n')}\n`);
    const stderr = await refused(file);
    expect(stderr).toContain(`${file}:${napo + 1}: row ${napo} (PIZ-NAPO): price: Monto inválido`);
    expect(stderr).toContain(`${file}:${agua + 1}: row ${agua} (BEB-AGUA): name: El campo es obligatorio. [required]`);
    expect(stderr).toContain(`${file}:${agua + 1}: row ${agua} (BEB-AGUA): active: `);
    expect(stderr).toContain('error: ');
    expect(stderr).toContain('3 problems; nothing was sent');
  });

  it('reports a bad option_groups cell with the group it is in', async () => {
    const file = rig.file('options.csv', [
      'external_id,name,category_external_id,category_name,price,option_groups',
      'X-1,Lomito,LOM,Lomitos,35000,X-1.carne = Carne [1-1 X-1.carne.v = Vacuna',
      'X-2,Lomito,LOM,Lomitos,35000,"X-2.g = Extras [0-2]: X-2.g.a = Huevo = 3.000,50"',
    ].join('\n'));
    const stderr = await refused(file);
    expect(stderr).toContain(`${file}:2: row 1 (X-1): option_groups: group 1: expected "code = name [min-max]: options"`);
    expect(stderr).toContain(`${file}:3: row 2 (X-2): option_groups.0.options.0.price: Monto inválido`);
  });

  it('reports JSON items by line and array index, with the contract field path', async () => {
    const menu = restaurant();
    menu.categories[0].positon = 1;
    menu.products[3].price = 7000;
    menu.products[5].option_groups = [{ external_id: menu.products[0].option_groups[0].external_id, name: 'Copia', options: [] }];
    const file = rig.file('bad.json', JSON.stringify(menu, null, 2));
    const text = readFileSync(file, 'utf8').split('\n');
    const lineOf = (code: string) => text.findIndex((l) => l.includes(`"external_id": "${code}"`)) /* 0-based line of the code = 1-based line of "{" */;
    const stderr = await refused(file);
    expect(stderr).toContain(`${file}:${lineOf('EMP')}: categories[0] (EMP): positon: El campo "positon" no es parte de esta operación. [unknown_field]`);
    expect(stderr).toContain(`${file}:${lineOf(menu.products[3].external_id)}: products[3] (${menu.products[3].external_id}): price: Debe ser un texto. [invalid_type]`);
    expect(stderr).toContain(`products[5] (${menu.products[5].external_id}): option_groups.0.external_id: code ${menu.products[0].option_groups[0].external_id} also belongs to product ${menu.products[0].external_id}`);
  });

  it('refuses a file that is not the catalog format, unreadable JSON, an unknown column and a missing file', async () => {
    expect(await refused(rig.file('other.json', '{"items": []}'))).toContain('"format" must be "merchant-kit.catalog"');
    expect(await refused(rig.file('broken.json', '{"format": "merchant-kit.catalog",\n "version": 1,\n "categories": [}'))).toMatch(/broken\.json:3: not valid JSON/);
    expect(await refused(rig.file('cols.csv', 'external_id,name,category_external_id,category_name,price,colour\n'))).toContain('unknown column "colour"');
    expect(await refused(`${rig.dir}/missing.json`)).toContain('missing.json: no such file');
    expect(await refused(rig.file('menu.txt', ''))).toContain('must end in .json or .csv');
  });

  it('refuses a product of a category that is neither in the file nor in the store, with its row', async () => {
    const file = rig.file('orphan.json', JSON.stringify({
      format: 'merchant-kit.catalog', version: 1, categories: [],
      products: [{ external_id: 'ORPHAN', name: 'Huérfano', category_external_id: 'NOPE', price: '1000' }],
    }, null, 2));
    expect(await refused(file)).toContain(`${file}:6: products[0] (ORPHAN): category_external_id: category NOPE is neither in the file nor in the store [not_found]`);
  });

  it('refuses a full snapshot of an empty file (it would deactivate everything)', async () => {
    const file = rig.file('empty.json', JSON.stringify({ format: 'merchant-kit.catalog', version: 1, categories: [], products: [] }));
    expect(await refused(file, ['--full-snapshot'])).toContain('a full snapshot of nothing');
  });

  it('accepts a CSV saved with ";" between cells and yes/no booleans', async () => {
    const file = rig.file('semicolon.csv', '\uFEFFexternal_id;name;category_external_id;category_name;price;available\nS-1;Chipa;CHI;Chipas;3000;no\n');
    const run = await rig.run(['catalog', 'sync', file, '--dry-run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).created).toEqual({ categories: ['CHI'], products: ['S-1'] });
  });
});
