import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateMenu, jsonOut, useCatalogRig } from '../helpers/catalog-cli.js';
import { allProducts } from '../helpers/batch.js';
import { waitUntil } from '../helpers/feed.js';

const rig = useCatalogRig({ each: true, limits: false });

const stateDir = () => join(rig.dir, 'merchant-kit', 'state', '_env');
const stateFiles = () => (existsSync(stateDir()) ? readdirSync(stateDir()).filter((f) => f.startsWith('catalog-snapshot-')) : []);

describe('catalog sync --full-snapshot after an interruption', () => {
  it('continues the same snapshot where it stopped: no part applied twice, the snapshot completes', async () => {
    const file = generateMenu(3000, join(rig.dir, 'menu-3000.json'));
    const total = 3000 + 6;
    // Each batch waits 400 ms before it runs, so the run can be killed in the middle.
    await rig.emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/catalog/batch', delay_ms: 400, times: 100 });
    const first = rig.start(['catalog', 'sync', file, '--full-snapshot', '--json']);
    await waitUntil(() => first.stderr().includes('part 3/7:'), () => first.stderr(), 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const snapshotId = /snapshot (mk-[0-9a-f]+-[0-9a-f]+): 7 parts/.exec(first.stderr())?.[1];
    expect(snapshotId, first.stderr()).toBeDefined();
    expect(stateFiles()).toHaveLength(1);
    const saved = JSON.parse(readFileSync(join(stateDir(), stateFiles()[0]), 'utf8'));
    expect(saved).toMatchObject({ snapshot_id: snapshotId, parts_total: 7 });
    expect(saved.parts_done).toBeGreaterThanOrEqual(3);
    expect(saved.parts_done).toBeLessThan(7);
    await rig.emu.control('DELETE', '/faults');

    const rerun = await rig.run(['catalog', 'sync', file, '--full-snapshot', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`resuming snapshot ${snapshotId} at part ${saved.parts_done + 1}/7`);
    const summary = jsonOut(rerun);
    expect(summary.snapshot).toMatchObject({ snapshot_id: snapshotId, status: 'completed', resumed_from_part: saved.parts_done + 1 });
    // Every operation was created exactly once across both runs: a repeated part would answer "unchanged".
    expect(summary.results).toEqual({ created: total, updated: 0, unchanged: 0, ignored_stale: 0, failed: 0 });
    expect(summary.batches).toBe(7 - saved.parts_done);
    const products = await allProducts(rig.emu);
    expect(products).toHaveLength(3000);
    expect(new Set(products.map((p) => p.external_id)).size).toBe(3000);
    expect(stateFiles()).toHaveLength(0);
  }, 120_000);

  it('starts a new snapshot when the file changed since the interrupted run', async () => {
    const file = generateMenu(1200, join(rig.dir, 'menu.json'));
    await rig.emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/catalog/batch', delay_ms: 400, times: 100 });
    const first = rig.start(['catalog', 'sync', file, '--full-snapshot']);
    await waitUntil(() => first.stderr().includes('part 1/3:'), () => first.stderr(), 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    await rig.emu.control('DELETE', '/faults');
    const menu = JSON.parse(readFileSync(file, 'utf8'));
    menu.products[0].price = '99000';
    const changed = rig.file('menu.json', JSON.stringify(menu));
    const rerun = await rig.run(['catalog', 'sync', changed, '--full-snapshot', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).not.toContain('resuming');
    expect(jsonOut(rerun).snapshot).toMatchObject({ status: 'completed', resumed_from_part: null });
    expect(jsonOut(rerun).results.failed).toBe(0);
  }, 120_000);

  it('an interrupted sync of changes sends, when run again, only what the first run did not apply', async () => {
    const file = generateMenu(1200, join(rig.dir, 'changes.json'));
    await rig.emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/catalog/batch', delay_ms: 400, times: 100 });
    const first = rig.start(['catalog', 'sync', file]);
    await waitUntil(() => first.stderr().includes('part 1/3:'), () => first.stderr(), 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    await rig.emu.control('DELETE', '/faults');
    // The batch in flight when the CLI died may still be running: the rerun waits for it (409).
    const rerun = await rig.run(['catalog', 'sync', file, '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = jsonOut(rerun);
    expect(summary.operations).toBeLessThanOrEqual(1203 - 500);
    expect(summary.not_sent_unchanged).toBeGreaterThanOrEqual(500);
    expect(summary.results.failed).toBe(0);
    const products = await allProducts(rig.emu);
    expect(products).toHaveLength(1200);
    expect(new Set(products.map((p) => p.external_id)).size).toBe(1200);
    const again = jsonOut(await rig.run(['catalog', 'sync', file, '--json']));
    expect(again.operations).toBe(0);
  }, 120_000);
});
