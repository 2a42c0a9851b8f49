import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateMenu, jsonOut, useOwnCatalogRigs, type CatalogRig } from '../helpers/catalog-cli.js';
import { allProducts } from '../helpers/batch.js';
import { waitUntil } from '../helpers/feed.js';

// Each test its own emulator and config folder: they run at once (most of their time is batches
// held by a delay fault, issue 27).
const own = useOwnCatalogRigs({ limits: false });

const stateDir = (rig: CatalogRig) => join(rig.dir, 'merchant-kit', 'state', '_env');
const stateFiles = (rig: CatalogRig) => (existsSync(stateDir(rig)) ? readdirSync(stateDir(rig)).filter((f) => f.startsWith('catalog-snapshot-')) : []);

/**
 * Runs `catalog sync …args` with every batch held 400 ms before it runs, kills it once its stderr
 * shows `line`, lifts the delay, and returns what it printed on stderr.
 */
async function interrupted(rig: CatalogRig, args: string[], line: string): Promise<string> {
  await rig.emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/catalog/batch', delay_ms: 400, times: 100 });
  const first = rig.start(['catalog', 'sync', ...args]);
  await waitUntil(() => first.stderr().includes(line), () => first.stderr(), 30_000);
  first.child.kill('SIGKILL');
  await first.exited;
  await rig.emu.control('DELETE', '/faults');
  return first.stderr();
}

/**
 * The snapshots' menu: 2,000 products and 4 categories, 5 parts of at most 500 operations (before
 * issue 27: 3,000 products in 7 parts, killed after the third; the same rules for two thirds of the
 * products to make, send and read). Killed after its first part, the run may have finished a second
 * one meanwhile, and the server may still apply the part it held when the run died: the last part
 * is still to come.
 */
const PRODUCTS = 2000;
/** generate-large.mjs's categories: one per 500 products. */
const OPERATIONS = PRODUCTS + 4;
const PARTS = 5;

/** A full snapshot of PRODUCTS killed after its first part, and the state it saved. */
async function interruptedSnapshot(rig: CatalogRig) {
  const file = generateMenu(PRODUCTS, join(rig.dir, `menu-${PRODUCTS}.json`));
  const stderr = await interrupted(rig, [file, '--full-snapshot', '--json'], `part 1/${PARTS}:`);
  const snapshotId = new RegExp(`snapshot (mk-[0-9a-f]+-[0-9a-f]+): ${PARTS} parts`).exec(stderr)?.[1];
  expect(snapshotId, stderr).toBeDefined();
  expect(stateFiles(rig)).toHaveLength(1);
  const path = join(stateDir(rig), stateFiles(rig)[0]);
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  expect(saved).toMatchObject({ snapshot_id: snapshotId, parts_total: PARTS });
  expect(saved.parts_done).toBeGreaterThanOrEqual(1);
  expect(saved.parts_done).toBeLessThan(PARTS);
  return { file, snapshotId: snapshotId!, saved, path };
}

describe.concurrent('catalog sync --full-snapshot after an interruption', () => {
  it('continues the same snapshot where it stopped: no part applied twice, the snapshot completes', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const total = OPERATIONS;
    const { file, snapshotId, saved } = await interruptedSnapshot(rig);

    const rerun = await rig.run(['catalog', 'sync', file, '--full-snapshot', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`resuming snapshot ${snapshotId} at part ${saved.parts_done + 1}/${PARTS}`);
    const summary = jsonOut(rerun);
    expect(summary.snapshot).toMatchObject({ snapshot_id: snapshotId, status: 'completed', resumed_from_part: saved.parts_done + 1 });
    // Every operation was created exactly once across both runs: a repeated part would answer "unchanged".
    expect(summary.results).toEqual({ created: total, updated: 0, unchanged: 0, ignored_stale: 0, failed: 0 });
    expect(summary.batches).toBe(PARTS - saved.parts_done);
    const products = await allProducts(rig.emu);
    expect(products).toHaveLength(PRODUCTS);
    expect(new Set(products.map((p) => p.external_id)).size).toBe(PRODUCTS);
    expect(stateFiles(rig)).toHaveLength(0);
  }, 300_000);

  it('continues at the part the server names when it answers 409 snapshot_out_of_order with details.expected_part', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const { file, snapshotId, saved, path } = await interruptedSnapshot(rig);
    expect(saved.parts_done).toBeLessThan(PARTS - 2);
    // A state file ahead of the server: the rerun sends the last part, which the server cannot take yet.
    writeFileSync(path, JSON.stringify({ ...saved, parts_done: PARTS - 1 }));
    const rerun = await rig.run(['catalog', 'sync', file, '--full-snapshot', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(new RegExp(`the server expects part (${saved.parts_done + 1}|${saved.parts_done + 2}) of snapshot ${snapshotId}; continuing there`));
    expect(jsonOut(rerun).snapshot).toMatchObject({ snapshot_id: snapshotId, status: 'completed' });
    expect(jsonOut(rerun).results.failed).toBe(0);
    expect(await allProducts(rig.emu)).toHaveLength(PRODUCTS);
    expect(stateFiles(rig)).toHaveLength(0);
  }, 300_000);

  it('starts a new snapshot when the interrupted one expired (409 snapshot_closed after 2 hours)', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const { file, snapshotId } = await interruptedSnapshot(rig);
    expect((await rig.emu.control('POST', '/clock/advance', { seconds: 2 * 3600 + 1 })).status).toBeLessThan(300);
    const rerun = await rig.run(['catalog', 'sync', file, '--full-snapshot', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`snapshot ${snapshotId} is closed (it expired); starting a new snapshot`);
    const summary = jsonOut(rerun);
    expect(summary.snapshot).toMatchObject({ status: 'completed' });
    expect(summary.snapshot.snapshot_id).not.toBe(snapshotId);
    expect(summary.results.failed).toBe(0);
    expect(summary.results.created + summary.results.unchanged).toBe(OPERATIONS);
    expect(await allProducts(rig.emu)).toHaveLength(PRODUCTS);
  }, 300_000);

  it('starts a new snapshot when the file changed since the interrupted run', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = generateMenu(1200, join(rig.dir, 'menu.json'));
    await interrupted(rig, [file, '--full-snapshot'], 'part 1/3:');
    const menu = JSON.parse(readFileSync(file, 'utf8'));
    menu.products[0].price = '99000';
    const changed = rig.file('menu.json', JSON.stringify(menu));
    const rerun = await rig.run(['catalog', 'sync', changed, '--full-snapshot', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).not.toContain('resuming');
    expect(jsonOut(rerun).snapshot).toMatchObject({ status: 'completed', resumed_from_part: null });
    expect(jsonOut(rerun).results.failed).toBe(0);
  }, 300_000);

  it('an interrupted sync of changes sends, when run again, only what the first run did not apply', async (t) => {
    const { expect } = t;
    const rig = await own(t);
    const file = generateMenu(1200, join(rig.dir, 'changes.json'));
    await interrupted(rig, [file], 'part 1/3:');
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
  }, 300_000);
});
