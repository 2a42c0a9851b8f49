import { describe, expect, it } from 'vitest';
import { catalogOf, generateMenu, jsonOut, readJson, restaurant, RESTAURANT_CSV, RESTAURANT_JSON, useCatalogRig } from '../helpers/catalog-cli.js';
import { newStore } from '../helpers/stores.js';

const rig = useCatalogRig({ each: 'reset', limits: false });

const productCount = restaurant().products.length;
const categoryCount = restaurant().categories.length;

describe('catalog pull → catalog sync', () => {
  it('round-trips the restaurant menu into a second store: equal catalogs, option groups, prices and positions included', async () => {
    const first = await rig.run(['catalog', 'sync', RESTAURANT_JSON]);
    expect(first.code, first.stderr).toBe(0);
    const out = `${rig.dir}/pulled.json`;
    const pull = await rig.run(['catalog', 'pull', '--out', out, '--json']);
    expect(pull.code, pull.stderr).toBe(0);
    expect(jsonOut(pull)).toMatchObject({ file: out, format: 'json', categories: categoryCount, products: productCount });
    // The file pull writes is the fixture itself: the fixture is in the exact format pull writes.
    expect(readJson(out)).toEqual(restaurant());

    const second = await newStore(rig.emu);
    const sync = await rig.run(['catalog', 'sync', out, '--json'], { credential: second.credential });
    expect(sync.code, sync.stderr).toBe(0);
    expect(jsonOut(sync).results).toMatchObject({ created: categoryCount + productCount, failed: 0 });
    const a = await catalogOf(rig.emu);
    const b = await catalogOf(rig.emu, second.credential);
    expect(b).toEqual(a);
    expect(b.products.find((p) => p.external_id === 'LOM-ARABE')?.option_groups).toHaveLength(3);
  });

  it('pulls every product page (1,200 products, 6 pages of 200) and the pull syncs into an equal store', async () => {
    const menu = generateMenu(1200, `${rig.dir}/menu-1200.json`);
    expect((await rig.run(['catalog', 'sync', menu])).code).toBe(0);
    const out = `${rig.dir}/pulled-1200.json`;
    const pull = await rig.run(['catalog', 'pull', '--out', out, '--json']);
    expect(pull.code, pull.stderr).toBe(0);
    expect(jsonOut(pull)).toMatchObject({ categories: 3, products: 1200 });
    expect(new Set(readJson(out).products.map((p: any) => p.external_id)).size).toBe(1200);
    const second = await newStore(rig.emu);
    expect((await rig.run(['catalog', 'sync', out, '--full-snapshot'], { credential: second.credential })).code).toBe(0);
    expect(await catalogOf(rig.emu, second.credential)).toEqual(await catalogOf(rig.emu));
  });

  it('syncs the CSV fixture into the same catalog as the JSON fixture', async () => {
    const json = await rig.run(['catalog', 'sync', RESTAURANT_JSON]);
    expect(json.code, json.stderr).toBe(0);
    const other = await newStore(rig.emu);
    const csv = await rig.run(['catalog', 'sync', RESTAURANT_CSV, '--json'], { credential: other.credential });
    expect(csv.code, csv.stderr).toBe(0);
    expect(jsonOut(csv)).toMatchObject({ mode: 'changes', operations: categoryCount + productCount, batches: 1 });
    expect(await catalogOf(rig.emu, other.credential)).toEqual(await catalogOf(rig.emu));
  });

  it('pulls to CSV and that CSV syncs back as "nothing to send"', async () => {
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    const out = `${rig.dir}/pulled.csv`;
    expect((await rig.run(['catalog', 'pull', '--out', out])).code).toBe(0);
    const dry = await rig.run(['catalog', 'sync', out, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonOut(dry).counts.unchanged).toEqual({ categories: categoryCount, products: productCount });
    expect(jsonOut(dry).operations).toBe(0);
  });
});

describe('catalog sync: changes only', () => {
  it('sends only what changed and reports created and updated', async () => {
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    const menu = restaurant();
    menu.products.find((p: any) => p.external_id === 'LOM-ARABE').price = '36000';
    menu.products.push({ external_id: 'EMP-QUESO', name: 'Empanada de queso', category_external_id: 'EMP', price: '7000' });
    const file = rig.file('menu.json', JSON.stringify(menu));
    const run = await rig.run(['catalog', 'sync', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonOut(run);
    expect(summary).toMatchObject({ operations: 2, batches: 1, not_sent_unchanged: categoryCount + productCount - 1 });
    expect(summary.results).toEqual({ created: 1, updated: 1, unchanged: 0, ignored_stale: 0, failed: 0 });
    const products = (await catalogOf(rig.emu)).products;
    expect(products.find((p) => p.external_id === 'LOM-ARABE')?.price).toBe('36000');
  });

  it('prints the summary of a run: counts, what was not sent, what the file lacks and stays', async () => {
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    const menu = restaurant();
    menu.products.find((p: any) => p.external_id === 'LOM-ARABE').price = '36000';
    menu.products = menu.products.filter((p: any) => p.external_id !== 'POS-FLAN');
    const run = await rig.run(['catalog', 'sync', rig.file('menu.json', JSON.stringify(menu))]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^Synced .*menu\.json into store ".+" \(str_\w+, test\) in \d+\.\d s \(changes only\)$/);
    expect(lines.slice(1, 4)).toEqual([
      '  1 operation in 1 batch: 0 created, 1 updated, 0 unchanged, 0 ignored as stale, 0 failed',
      `  ${categoryCount + productCount - 2} items already up to date, not sent`,
      '  Not in the file, left as it is: 1 item of the store (only --full-snapshot deactivates missing items).',
    ]);
  });
});

describe('catalog sync --dry-run', () => {
  it('prints created, updated, deactivated and unchanged and changes nothing', async () => {
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    await rig.emu.control('PATCH', `/integrations/${rig.emu.test.integration_id}`, { settings: { missing_items_policy: 'deactivate' } });
    const menu = restaurant();
    menu.products.find((p: any) => p.external_id === 'PIZ-MUZZA').price = '56000';
    menu.products.find((p: any) => p.external_id === 'BEB-AGUA').available = false;
    menu.products = menu.products.filter((p: any) => p.external_id !== 'POS-FLAN');
    menu.products.push({ external_id: 'BEB-TERERE', name: 'Tereré con yuyos', category_external_id: 'BEB', price: '9000' });
    const file = rig.file('menu.json', JSON.stringify(menu));
    const before = await catalogOf(rig.emu);

    const dry = await rig.run(['catalog', 'sync', file, '--full-snapshot', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = jsonOut(dry);
    expect(plan).toMatchObject({ dry_run: true, mode: 'full_snapshot', missing_items_policy: 'deactivate' });
    expect(plan.counts).toEqual({
      created: { categories: 0, products: 1 },
      updated: { categories: 0, products: 2 },
      deactivated: { categories: 0, products: 1 },
      unchanged: { categories: categoryCount, products: productCount - 3 },
    });
    expect(plan.created.products).toEqual(['BEB-TERERE']);
    expect(plan.updated.products.sort()).toEqual(['BEB-AGUA', 'PIZ-MUZZA']);
    expect(plan.deactivated.products).toEqual(['POS-FLAN']);

    const human = await rig.run(['catalog', 'sync', file, '--dry-run']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/created\s+0\s+1/);
    expect(human.stdout).toMatch(/updated\s+0\s+2/);
    expect(human.stdout).toContain('~ product PIZ-MUZZA  (price)');
    expect(human.stdout).toContain('+ product BEB-TERERE');
    expect(human.stdout).toContain('Nothing was sent.');
    expect(await catalogOf(rig.emu)).toEqual(before);
  });
});

describe('catalog sync --full-snapshot', () => {
  it('deactivates the items missing from the file when missing_items_policy is deactivate', async () => {
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    await rig.emu.control('PATCH', `/integrations/${rig.emu.test.integration_id}`, { settings: { missing_items_policy: 'deactivate' } });
    const menu = restaurant();
    const desserts = menu.products.filter((p: any) => p.category_external_id === 'POS').map((p: any) => p.external_id);
    menu.categories = menu.categories.filter((c: any) => c.external_id !== 'POS');
    menu.products = menu.products.filter((p: any) => p.category_external_id !== 'POS');
    const file = rig.file('menu.json', JSON.stringify(menu));
    const run = await rig.run(['catalog', 'sync', file, '--full-snapshot', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonOut(run);
    expect(summary.snapshot).toMatchObject({ status: 'completed', deactivated: desserts.length + 1, reason: null });
    const after = await catalogOf(rig.emu);
    expect(after.categories.find((c) => c.external_id === 'POS')?.active).toBe(false);
    for (const code of desserts) expect(after.products.find((p) => p.external_id === code)?.active).toBe(false);
    expect(after.products.filter((p) => p.active).length).toBe(menu.products.filter((p: any) => p.active).length);
  });

  it('keeps missing items with missing_items_policy keep (the default)', async () => {
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    const menu = restaurant();
    menu.products = menu.products.filter((p: any) => p.external_id !== 'POS-FLAN');
    const run = await rig.run(['catalog', 'sync', rig.file('menu.json', JSON.stringify(menu)), '--full-snapshot', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonOut(run).snapshot).toMatchObject({ status: 'completed', deactivated: 0 });
    expect((await catalogOf(rig.emu)).products.find((p) => p.external_id === 'POS-FLAN')?.active).toBe(true);
  });
});

describe('catalog sync under the batch limits', () => {
  it('waits on 429 with Retry-After and on 409 batch_in_progress, then succeeds', async () => {
    const path = '/sandbox/v1/catalog/batch';
    expect((await rig.emu.control('POST', '/faults', { method: 'POST', path, status: 429, retry_after: 1, times: 1 })).status).toBeLessThan(300);
    expect((await rig.emu.control('POST', '/faults', { method: 'POST', path, status: 409, code: 'batch_in_progress', retry_after: 1, times: 1 })).status).toBeLessThan(300);
    const started = Date.now();
    const run = await rig.run(['catalog', 'sync', RESTAURANT_JSON, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(run.stderr).toContain('waiting 1 s: 429 rate_limited');
    expect(run.stderr).toContain('waiting 1 s: 409 batch_in_progress');
    expect(jsonOut(run).results).toMatchObject({ created: categoryCount + productCount, failed: 0 });
    expect((await catalogOf(rig.emu)).products).toHaveLength(productCount);
  });
});

describe('catalog sync under 5xx faults', () => {
  const path = '/sandbox/v1/catalog/batch';
  // The retries, not their waits, are the subject: no Retry-After (a 503's default is 1 s) and the
  // client's backoff shortened (TEST-ONLY).
  const fast = { MERCHANT_KIT_RETRY_BASE_MS: '5' };

  it('rides out 503s on the batch with backoff, then applies everything', async () => {
    expect((await rig.emu.control('POST', '/faults', { method: 'POST', path, status: 503, retry_after: 0, times: 2 })).status).toBeLessThan(300);
    const run = await rig.run(['catalog', 'sync', RESTAURANT_JSON, '--json'], { env: fast });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/waiting [\d.]+ s: 503 maintenance/);
    expect(jsonOut(run).results).toMatchObject({ created: categoryCount + productCount, failed: 0 });
    expect((await catalogOf(rig.emu)).products).toHaveLength(productCount);
  });

  it('a 503 storm that outlasts the retries: exit 1 with the API line and no stack trace, nothing applied', async () => {
    expect((await rig.emu.control('POST', '/faults', { method: 'POST', path, status: 503, retry_after: 0, times: 50 })).status).toBeLessThan(300);
    const run = await rig.run(['catalog', 'sync', RESTAURANT_JSON], { env: fast });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^error: .+\(503 maintenance, request_id req_\w+\)$/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    await rig.emu.control('DELETE', '/faults');
    expect((await catalogOf(rig.emu)).products).toHaveLength(0);
  });
});

describe('catalog sync against a store whose panel owns the catalog', () => {
  it('refuses with catalog_mode manual before sending anything (exit 1)', async () => {
    const manual = await newStore(rig.emu, { settings: { catalog_mode: 'manual' } });
    const run = await rig.run(['catalog', 'sync', RESTAURANT_JSON], { credential: manual.credential });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: the integration's catalog_mode is manual");
    expect((await catalogOf(rig.emu, manual.credential)).products).toEqual([]);
  });
});

describe('catalog sync: per-operation errors', () => {
  it('reports an operation the API refuses with its file row, applies the others and exits 1', async () => {
    // An option code that already belongs to another product of the store: only the API knows.
    await rig.emu.api('PUT', '/catalog/categories/OTR', { body: { name: 'Otros' } });
    await rig.emu.api('PUT', '/catalog/products/OTR-1', {
      body: { name: 'Otro', category_external_id: 'OTR', price: '1000', option_groups: [{ external_id: 'G-1', name: 'G', options: [{ external_id: 'SHARED', name: 'S' }] }] },
    });
    const csv = [
      'external_id,name,category_external_id,category_name,price,option_groups',
      'A-1,Producto A,CAT-A,Categoría A,5000,',
      'A-2,Producto B,CAT-A,Categoría A,6000,A-2.g = Grupo [0-1]: SHARED = Compartida',
      'A-3,Producto C,CAT-A,Categoría A,7000,',
    ].join('\n');
    const file = rig.file('menu.csv', `${csv}\n`);
    const run = await rig.run(['catalog', 'sync', file, '--json']);
    expect(run.code).toBe(1);
    const summary = jsonOut(run);
    expect(summary.results).toMatchObject({ created: 3, failed: 1 });
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]).toMatchObject({ file, line: 3, external_id: 'A-2', op: 'upsert_product' });
    // --json: the failure is one JSON object, the last line of stderr, with the failed operations.
    const error = JSON.parse(run.stderr.trim().split('\n').at(-1)!);
    expect(error.error).toMatchObject({ status: null, code: 'operations_failed', details: [expect.objectContaining({ line: 3, external_id: 'A-2' })] });
    const human = await rig.run(['catalog', 'sync', file]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`${file}:3: row 2 (A-2): upsert_product failed: validation_failed`);
    const codes = (await catalogOf(rig.emu)).products.map((p) => p.external_id);
    expect(codes).toEqual(expect.arrayContaining(['A-1', 'A-3']));
    expect(codes).not.toContain('A-2');
  });
});
