import { describe, expect, it } from 'vitest';
import { formatOptionGroups, OptionSyntaxError, parseOptionGroups } from '../../src/cli/commands/catalog/file/option-syntax.js';
import { elementLines } from '../../src/cli/commands/catalog/file/json-read.js';
import { renameField } from '../../src/cli/commands/catalog/file/model.js';
import { splitParts } from '../../src/cli/commands/catalog/sync/parts.js';
import { productChanges, categoryChanges } from '../../src/cli/commands/catalog/sync/compare.js';
import { productInput, categoryInput } from '../../src/contract/catalog.js';
import type { PlannedOp } from '../../src/cli/commands/catalog/sync/plan.js';
import { comparableName, formatSimilar, similarCategories } from '../../src/cli/commands/catalog/sync/similar.js';
import { stoppedText } from '../../src/cli/commands/catalog/sync/report.js';
import { SyncStopped } from '../../src/cli/commands/catalog/sync/run.js';

// Pure parts of catalog sync: the CSV option syntax, JSON item lines, part splitting, the diff.

describe('option_groups cell syntax', () => {
  it.each([
    ['', []],
    ['G = Tamaño [1-1]: O1 = Chica; O2 = Grande = 15000', [{ external_id: 'G', name: 'Tamaño', min_select: 1, max_select: 1, options: [{ external_id: 'O1', name: 'Chica' }, { external_id: 'O2', name: 'Grande', price: '15000' }] }]],
    ['G=Extras:O=Huevo=3000=unavailable', [{ external_id: 'G', name: 'Extras', options: [{ external_id: 'O', name: 'Huevo', price: '3000', available: false }] }]],
    ['G = Salsas [0-2]: A = Ajo = unavailable | H = Hielo', [
      { external_id: 'G', name: 'Salsas', min_select: 0, max_select: 2, options: [{ external_id: 'A', name: 'Ajo', available: false }] },
      { external_id: 'H', name: 'Hielo', options: [] },
    ]],
    ['G\\:1 = Pan \\| masa \\[casera\\]: O = 1\\/2 \\= medio\\; x', [{ external_id: 'G:1', name: 'Pan | masa [casera]', options: [{ external_id: 'O', name: '1/2 = medio; x' }] }]],
  ])('parses %j', (cell, groups) => {
    expect(parseOptionGroups(cell)).toEqual(groups);
  });

  it.each([
    ['G Tamaño: O = Chica', /group 1: expected "code = name/],
    ['G = Tamaño [1-1 O = x', /group 1: expected "code = name/],
    ['G = T: O', /group 1, option 1: expected "code = name/],
    ['G = T: O = a = 1 = 2', /group 1, option 1/],
    ['G = T [a-b]: O = x', /bounds go as \[min-max\]/],
  ])('refuses %j', (cell, message) => {
    expect(() => parseOptionGroups(cell)).toThrow(OptionSyntaxError);
    expect(() => parseOptionGroups(cell)).toThrow(message);
  });

  it('writes what it reads (pull → CSV → sync keeps every group and option)', () => {
    const groups = [
      { external_id: 'P.g:1', name: 'Pan | masa; [x] = y', min_select: 0, max_select: 3, options: [
        { external_id: 'P.o1', name: 'Uno', price: '0', available: true },
        { external_id: 'P.o2', name: 'Dos: extra', price: '2500.50', available: false },
      ] },
      { external_id: 'P.h', name: 'Vacío', min_select: 0, max_select: 1, options: [] },
    ];
    const parsed = productInput.parse({ name: 'x', category_external_id: 'C', price: '1', option_groups: parseOptionGroups(formatOptionGroups(groups)) });
    expect(parsed.option_groups).toEqual(groups);
  });
});

describe('renameField', () => {
  it.each([
    ['price', { price: '--price' }, '--price'],
    ['option_groups.0.options.1.price', { price: '--price' }, 'option_groups.0.options.1.price'],
    ['name', { name: 'category_name' }, 'category_name'],
    ['name.x', { name: 'category_name' }, 'category_name.x'],
    ['sku', {}, 'sku'],
    ['', {}, ''],
    ['toString', {}, 'toString'],
  ])('%j with %j → %j', (field, names, shown) => {
    expect(renameField(field, names)).toBe(shown);
  });
});

describe('elementLines', () => {
  it('finds the line where each category and product starts, whatever the layout', () => {
    const text = '{\n  "format": "x",\n  "categories": [\n    {"external_id": "A", "name": "[{,\\"}]"},\n    {\n      "external_id": "B"\n    }\n  ],\n  "products": [{"a": [1, {"b": 2}]}, {"c": 3},\n\n  {"d": 4}]\n}';
    expect(elementLines(text)).toEqual({ categories: [4, 5], products: [9, 9, 11] });
  });
});

const op = (code: string, bytes = 0): PlannedOp => ({
  op: 'upsert_product', external_id: code, data: { name: 'x'.repeat(bytes) } as never, where: { file: 'f', line: 1, label: '' }, change: 'created', fields: [],
});

describe('splitParts', () => {
  it.each([
    [0, 500, [] as number[]],
    [1, 500, [1]],
    [500, 500, [500]],
    [501, 500, [500, 1]],
    [1201, 500, [500, 500, 201]],
  ])('%i operations at most %i a part → %j', (n, max, sizes) => {
    expect(splitParts(Array.from({ length: n }, (_, i) => op(`P-${i}`)), max).map((p) => p.length)).toEqual(sizes);
  });

  it('keeps a part under the byte limit, in order', () => {
    const ops = Array.from({ length: 10 }, (_, i) => op(`P-${i}`, 1000));
    const parts = splitParts(ops, 500, 3500);
    expect(parts.map((p) => p.length)).toEqual([3, 3, 3, 1]);
    expect(parts.flat().map((o) => o.external_id)).toEqual(ops.map((o) => o.external_id));
  });
});

describe('what a PUT would change', () => {
  const stored = {
    id: 'prd_1', external_id: 'P', category_external_id: 'C', category_id: 'cat_1', name: 'Pizza', price: '55000.50', description: null, sku: null,
    active: true, available: true, position: 3, image_url: 'https://x/a.png', image: { status: 'ready', source: 'integration', requested_url: 'https://x/a.png', error: null },
    option_groups: [{ id: 'ogr_1', external_id: 'G', name: 'Tamaño', min_select: 0, max_select: 1, options: [{ id: 'opt_1', external_id: 'O', name: 'Chica', price: '0', available: true }] }],
    source_updated_at: null, created_at: '', updated_at: '',
  } as const;
  const item = (data: Record<string, unknown>) => ({
    external_id: 'P', where: { file: 'f', line: 1, label: '' },
    data: productInput.parse({ name: 'Pizza', category_external_id: 'C', price: '55000.5', option_groups: [{ external_id: 'G', name: 'Tamaño', options: [{ external_id: 'O', name: 'Chica' }] }], ...data }),
  });

  it.each([
    [{}, []],
    [{ position: 3, image_url: 'https://x/a.png' }, []],
    [{ price: '55000.51' }, ['price']],
    [{ position: 4, available: false }, ['available', 'position']],
    [{ image_url: 'https://x/b.png' }, ['image_url']],
    [{ image_url: 'https://x/b.png', image_mode: 'if_empty' }, []],
    [{ description: 'Rica' }, ['description']],
    [{ option_groups: [{ external_id: 'G', name: 'Tamaño', options: [{ external_id: 'O', name: 'Chica', price: '1' }] }] }, ['option_groups']],
    [{ option_groups: [] }, ['option_groups']],
  ])('%j → %j', (data, fields) => {
    expect(productChanges(item(data), stored as never)).toEqual(fields);
  });

  it('compares a category by name, active and (when given) position', () => {
    const cat = { id: 'cat_1', external_id: 'C', name: 'Bebidas', position: 5, active: true, source_updated_at: null, created_at: '', updated_at: '' };
    const c = (data: Record<string, unknown>) => ({ external_id: 'C', where: { file: 'f', line: 1, label: '' }, data: categoryInput.parse({ name: 'Bebidas', ...data }) });
    expect(categoryChanges(c({}), cat)).toEqual([]);
    expect(categoryChanges(c({ position: 6, active: false }), cat)).toEqual(['position', 'active']);
  });
});

// issue 14: the warnings and the stop report of catalog sync.
describe('similarCategories', () => {
  const where = (line: number) => ({ file: 'menu.json', line, label: `categories[${line}]` });
  const plan = (created: string[]) => ({ created: { categories: created, products: [] } }) as never;
  const items = { file: 'menu.json', products: [], categories: [
    { external_id: 'EMPANADAS', data: { name: 'Empanadas  Árabes', active: true }, where: where(1) },
    { external_id: 'POS', data: { name: 'Postres', active: true }, where: where(2) },
  ] } as never;
  const store = (categories: { id: string; external_id: string | null; name: string }[]) => ({ categories }) as never;

  it('compares names as people do: accents, letter case and spaces aside', () => {
    expect(comparableName('  Empanadas   ÁRABES ')).toBe(comparableName('empanadas arabes'));
    expect(comparableName('Pizzas')).not.toBe(comparableName('Pizza'));
  });

  it('names the code meant, or the panel\'s category without a code; only for categories the sync creates', () => {
    const found = similarCategories(plan(['EMPANADAS', 'POS']), items, store([{ id: 'cat_1', external_id: 'EMP', name: 'Empanadas árabes' }]));
    expect(found.map(formatSimilar)).toEqual(['menu.json:1: categories[1]: new category EMPANADAS "Empanadas  Árabes" has the name of the store\'s category EMP ("Empanadas árabes"); did you mean EMP?']);
    const panel = similarCategories(plan(['POS']), items, store([{ id: 'cat_2', external_id: null, name: 'POSTRES' }]));
    expect(formatSimilar(panel[0]!)).toBe('menu.json:2: categories[2]: new category POS "Postres" has the name of a category made in the panel (cat_2, no external_id): the store would have two "POSTRES"');
    expect(similarCategories(plan([]), items, store([{ id: 'cat_1', external_id: 'EMP', name: 'Empanadas árabes' }]))).toEqual([]);
  });
});

describe('stoppedText', () => {
  const stopped = (resume: { partsDone: number; partsTotal: number; snapshotId: string | null }, from: number | null, to: number | null, operations: number) =>
    new SyncStopped({ operations: 3006, thisRun: { fromPart: from, toPart: to, operations } } as never, resume, new Error('x'));

  it.each([
    [stopped({ partsDone: 3, partsTotal: 7, snapshotId: 'mk-1' }, 1, 3, 1500), 'part 3 of 7 sent (this run: parts 1–3, 1,500 operations); run the same command again to resume snapshot mk-1 at part 4'],
    [stopped({ partsDone: 5, partsTotal: 7, snapshotId: 'mk-1' }, 5, 5, 500), 'part 5 of 7 sent (this run: part 5, 500 operations); run the same command again to resume snapshot mk-1 at part 6'],
    [stopped({ partsDone: 0, partsTotal: 7, snapshotId: 'mk-1' }, null, null, 0), 'no part of 7 acknowledged yet (this run sent no part); run the same command again to resume snapshot mk-1 at part 1'],
    [stopped({ partsDone: 1, partsTotal: 3, snapshotId: null }, 1, 1, 1), 'batch 1 of 3 sent (1 operation of 3,006); run the same command again: it sends only what is still different from the store'],
  ])('%#: %s', (s, text) => expect(stoppedText(s)).toBe(text));
});
