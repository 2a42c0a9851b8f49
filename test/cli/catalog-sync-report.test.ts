import { join } from 'node:path';
import { describe, it } from 'vitest';
import { catalogOf, generateMenu, jsonOut, RESTAURANT_JSON, useOwnCatalogRigs, type CatalogRig } from '../helpers/catalog-cli.js';
import { waitUntil } from '../helpers/feed.js';

// issue 14: catalog sync warns when a new category has the name of one the store has ("did you
// mean EMP?"), reports every problem of a file in one run, and a sync that stops early says how far
// it got and how to go on, counting what each run sent.

// Each test on an emulator of its own (a stopped CLI's batch may still run in it). The tests of a
// stopped sync run at once: each waits on batches held by a delay fault, which the others need not
// wait behind (issue 27).
const own = useOwnCatalogRigs({ limits: false });

const catalogFile = (rig: CatalogRig, name: string, doc: object) => rig.file(name, JSON.stringify({ format: 'merchant-kit.catalog', version: 1, categories: [], products: [], ...doc }, null, 2));

describe('a new category named like one of the store', () => {
  it('is warned about with the code meant ("did you mean EMP?"), and still sent', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    const file = catalogFile(rig, 'typo.json', {
      categories: [{ external_id: 'EMPANADAS', name: ' empanadas' }],
      products: [{ external_id: 'EMP-QUESO-2', name: 'Empanada de queso', category_external_id: 'EMPANADAS', price: '9000' }],
    });
    const run = await rig.run(['catalog', 'sync', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`warning: ${file}:5: categories[0] (EMPANADAS): new category EMPANADAS " empanadas" has the name of the store's category EMP ("Empanadas"); did you mean EMP?`);
    expect((await catalogOf(rig.emu)).categories.map((c) => c.external_id)).toContain('EMPANADAS');
  });

  it('--json puts the warning in the answer (stderr stays free of it); an existing code or a new name is not warned about', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    expect((await rig.run(['catalog', 'sync', RESTAURANT_JSON])).code).toBe(0);
    const file = catalogFile(rig, 'typo.json', { categories: [{ external_id: 'EMPANADAS', name: 'Empanadas' }, { external_id: 'EMP', name: 'Empanadas' }, { external_id: 'POS', name: 'Postres' }] });
    const run = await rig.run(['catalog', 'sync', file, '--dry-run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(jsonOut(run).warnings).toEqual([
      expect.objectContaining({ code: 'similar_category', line: 5, external_id: 'EMPANADAS', existing: expect.objectContaining({ external_id: 'EMP', name: 'Empanadas' }) }),
    ]);
  });
});

describe('every problem of a file, in one run', () => {
  it('JSON: a wrong version, an item\'s field, a product of an unknown category, all at once (exit 2, nothing sent)', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = rig.file('bad.json', JSON.stringify({
      format: 'merchant-kit.catalog', version: 2,
      categories: [{ external_id: 'BAD', name: '' }],
      products: [
        { external_id: 'P-1', name: 'Uno', category_external_id: 'NOPE', price: '1000' },
        { external_id: 'P-2', name: 'Dos', category_external_id: 'BAD', price: 'mil' },
      ],
    }, null, 2));
    const run = await rig.run(['catalog', 'sync', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"version" must be 1');
    expect(run.stderr).toMatch(/categories\[0\] \(BAD\): name: .*\[/);
    expect(run.stderr).toContain('products[0] (P-1): category_external_id: category NOPE is neither in the file nor in the store [not_found]');
    expect(run.stderr).toMatch(/products\[1\] \(P-2\): price: Monto inválido/);
    // A product of a category that has problems of its own is not also "of an unknown category".
    expect(run.stderr).not.toContain('category BAD is neither');
    expect(run.stderr).toContain('4 problems; nothing was sent');
    expect((await catalogOf(rig.emu)).products).toEqual([]);
  });

  it('CSV: an unknown column and a missing one are reported once each, with every row\'s own problems', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = rig.file('bad.csv', [
      'external_id,name,category_external_id,price,colour',
      'C-1,Chipa,CHI,3000,red',
      'C-2,Mbejú,CHI,tres mil,blue',
      'C-3,,CHI,4000,green',
    ].join('\n'));
    const run = await rig.run(['catalog', 'sync', file]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines.filter((l) => l.includes('unknown column "colour"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('missing column "category_name"'))).toHaveLength(1);
    // Not again for each row (nor for the category CHI, whose name is in that column).
    expect(lines.filter((l) => l.includes(': category_name: '))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('colour'))).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`${file}:3: row 2 \\(C-2\\): price: Monto inválido`));
    expect(run.stderr).toContain(`${file}:4: row 3 (C-3): name: `);
    expect(run.stderr).toContain('4 problems; nothing was sent');
  });

  it('with --json, the problems are the details of the one JSON error', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = catalogFile(rig, 'bad.json', { version: 3, products: [{ external_id: 'P-1', name: 'Uno', category_external_id: 'NOPE', price: '1000' }] });
    const run = await rig.run(['catalog', 'sync', file, '--json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const { error } = JSON.parse(lines[0]);
    expect(error).toMatchObject({ code: 'usage_error', message: `${file}: 2 problems; nothing was sent` });
    expect(error.details).toEqual([
      expect.objectContaining({ field: 'version', code: 'invalid_value' }),
      expect.objectContaining({ item: 'products[0] (P-1)', field: 'category_external_id', code: 'not_found' }),
    ]);
  });
});

/** Starts `catalog sync …args` with every batch held `ms` before it runs, and waits until stderr shows `line`. */
async function startSlow(rig: CatalogRig, args: string[], line: string, ms = 400) {
  await rig.emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/catalog/batch', delay_ms: ms, times: 100 });
  // The client's backoff shortened (test-only variable): a failure that outlasts the retries comes fast.
  const run = rig.start(['catalog', 'sync', ...args], { MERCHANT_KIT_RETRY_BASE_MS: '5' });
  await waitUntil(() => run.stderr().includes(line), () => run.stderr(), 60_000);
  return run;
}

describe.concurrent('a sync stopped before its end', () => {
  it('by Ctrl+C: the part in flight finishes, it says which part of how many was sent and to run the same command again; the rerun counts its own parts', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = generateMenu(3000, join(rig.dir, 'menu.json'));
    const run = await startSlow(rig, [file, '--full-snapshot'], 'part 2/7:');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    await rig.emu.control('DELETE', '/faults');
    const stderr = run.stderr();
    const stopped = /error: stopped by SIGINT: part (\d) of 7 sent \(this run: parts 1–\1, ([\d,]+) operations\); run the same command again to resume snapshot (mk-[0-9a-f-]+) at part (\d)\n$/.exec(stderr);
    expect(stopped, stderr).not.toBeNull();
    const [, done, , snapshotId, next] = stopped!;
    expect(Number(next)).toBe(Number(done) + 1);
    expect(stderr).toContain('SIGINT: stopping after the part in flight');

    const rerun = await rig.run(['catalog', 'sync', file, '--full-snapshot']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`snapshot of 3,006 operations in 7 parts: 3,006 created, 0 updated, 0 unchanged, 0 ignored as stale, 0 failed`);
    expect(rerun.stdout).toMatch(new RegExp(`this run: parts ${next}–7, [\\d,]+ operations: [\\d,]+ created, .*; parts? 1(–${done})? sent by an earlier run`));
    expect(rerun.stdout).toContain(`snapshot ${snapshotId}: completed`);
  }, 300_000);

  it('by a failure: "interrupted: part N of 7 sent …; run the same command again to resume", then the error', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = generateMenu(3000, join(rig.dir, 'menu.json'));
    const run = await startSlow(rig, [file, '--full-snapshot'], 'part 2/7:', 300);
    await rig.emu.control('DELETE', '/faults');
    await rig.emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/catalog/batch', status: 503, code: 'maintenance', times: 1000 });
    expect(await run.exited).toBe(1);
    await rig.emu.control('DELETE', '/faults');
    const lines = run.stderr().trim().split('\n');
    expect(lines.at(-2)).toMatch(/^interrupted: part [23] of 7 sent \(this run: parts 1–[23], [\d,]+ operations\); run the same command again to resume snapshot mk-[0-9a-f-]+ at part [34]$/);
    expect(lines.at(-1)).toMatch(/^error: .+\(503 maintenance, request_id req_\w+\)$/);
  }, 300_000);

  it('a run of changes stopped by Ctrl+C says that the same command sends what is still different', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = generateMenu(1200, join(rig.dir, 'changes.json'));
    const run = await startSlow(rig, [file], 'part 1/3:');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toMatch(/error: stopped by SIGINT: batch [12] of 3 sent \([\d,]+ operations of 1,203\); run the same command again: it sends only what is still different from the store\n$/);
  }, 300_000);

  it('with --json: the summary so far on stdout with `interrupted`, and one JSON error (code interrupted) on stderr', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = generateMenu(3000, join(rig.dir, 'menu.json'));
    const run = await startSlow(rig, [file, '--full-snapshot', '--json'], 'part 2/7:');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const summary = JSON.parse(run.stdout());
    expect(summary.interrupted).toMatchObject({ reason: 'signal SIGINT', parts_total: 7, snapshot_id: expect.stringMatching(/^mk-/) });
    expect(summary.this_run).toMatchObject({ from_part: 1, to_part: summary.interrupted.parts_done });
    const error = JSON.parse(run.stderr().trim().split('\n').at(-1)!);
    expect(error.error).toMatchObject({ code: 'interrupted', details: { signal: 'SIGINT', parts_done: summary.interrupted.parts_done, parts_total: 7 } });
  }, 300_000);
});
