import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { allCategories, allProducts, batch, newKey, upsertCategory, upsertProduct } from '../../helpers/batch.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu.close());
beforeEach(async () => {
  await emu.control('POST', '/reset');
});

const setPolicy = (policy: 'keep' | 'deactivate') =>
  emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { missing_items_policy: policy } });

/** CAT-A with; CAT-B with B-1: the catalog the ERP published before the snapshot. */
async function publishCatalog() {
  const res = await batch(emu, {
    operations: [upsertCategory('CAT-A'), upsertCategory('CAT-B'), upsertProduct('A-1', 'CAT-A'), upsertProduct('A-2', 'CAT-A'), upsertProduct('B-1', 'CAT-B')],
  });
  expect(res.body.data.summary.failed).toBe(0);
}

async function activeCodes() {
  const products = (await allProducts(emu)).filter((p) => p.active).map((p) => p.external_id).sort();
  const categories = (await allCategories(emu)).filter((c) => c.active).map((c) => c.external_id).sort();
  return { products, categories };
}

const part = (snapshot_id: string, snapshot_part: number, operations: unknown[], snapshot_last?: boolean) =>
  ({ operations, full_snapshot: true, snapshot_id, snapshot_part, ...(snapshot_last === undefined ? {} : { snapshot_last }) });

describe('full snapshot in one part (no snapshot_id)', () => {
  it('deactivates the linked products and categories not sent under missing_items_policy deactivate', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const res = await batch(emu, { full_snapshot: true, operations: [upsertCategory('CAT-A'), upsertProduct('A-1', 'CAT-A')] });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.snapshot).toEqual({ snapshot_id: data.sync_run_id, part: 1, status: 'completed', deactivated: 3, reason: null });
    expect(await activeCodes()).toEqual({ products: ['A-1'], categories: ['CAT-A'] });
  });

  it('answers 422 to a one-part snapshot without operations and deactivates nothing (DESIGN: empty operations is 422)', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const res = await batch(emu, { full_snapshot: true, operations: [] });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'operations', code: 'too_small' })]);
    expect((await activeCodes()).products).toEqual(['A-1', 'A-2', 'B-1']);
  });

  it('deactivates nothing under missing_items_policy keep', async () => {
    await publishCatalog();
    const res = await batch(emu, { full_snapshot: true, operations: [upsertCategory('CAT-A')] });
    expect(res.body.data.snapshot).toMatchObject({ status: 'completed', deactivated: 0, reason: null });
    expect((await activeCodes()).products).toEqual(['A-1', 'A-2', 'B-1']);
  });

  it('deactivates nothing when an operation failed, with reason failed_operations', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const res = await batch(emu, { full_snapshot: true, operations: [upsertCategory('CAT-A'), upsertProduct('A-1', 'CAT-A', { price: 'bad' })] });
    expect(res.body.data.summary).toEqual({ total: 2, succeeded: 1, failed: 1 });
    expect(res.body.data.snapshot).toMatchObject({ status: 'completed', deactivated: 0, reason: 'failed_operations' });
    expect((await activeCodes()).products).toEqual(['A-1', 'A-2', 'B-1']);
  });

  it('keeps, without error, a category not sent that still has an active product', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    // CAT-B is not sent but B-1 is: B-1 stays active, so CAT-B cannot go.
    const res = await batch(emu, { full_snapshot: true, operations: [upsertCategory('CAT-A'), upsertProduct('B-1', 'CAT-B')] });
    expect(res.body.data.summary.failed).toBe(0);
    expect(res.body.data.snapshot).toMatchObject({ status: 'completed', deactivated: 2, reason: null });
    expect(await activeCodes()).toEqual({ products: ['B-1'], categories: ['CAT-A', 'CAT-B'] });
  });

  it('never touches products made in the panel nor another integration\'s items', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const panel = await emu.control('POST', `/stores/${emu.test.store_id}/products`, { name: 'Promo', price: '1000', category_name: 'Promos' });
    expect(panel.status).toBe(201);
    const other = await emu.control('POST', '/stores', { environment: 'test', settings: { missing_items_policy: 'deactivate' } });
    const credential = other.body.data.credential;
    await batch(emu, { operations: [upsertCategory('CAT-A'), upsertProduct('A-1', 'CAT-A')] }, { credential });

    await batch(emu, { full_snapshot: true, operations: [upsertCategory('CAT-A'), upsertProduct('A-1', 'CAT-A')] });
    const mine = await allProducts(emu);
    expect(mine.find((p) => p.external_id === null)?.active).toBe(true);
    const theirs = await allProducts(emu, credential);
    expect(theirs.map((p) => [p.external_id, p.active])).toEqual([['A-1', true]]);
  });

  it('answers 422 to snapshot_part other than 1 without snapshot_id', async () => {
    const res = await batch(emu, { full_snapshot: true, snapshot_part: 2, operations: [upsertCategory('CAT-A')] });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: any) => d.field)).toEqual(['snapshot_part']);
  });
});

describe('full snapshot in parts', () => {
  it('keeps the snapshot open until the last part, with one sync_run_id for all parts, then applies the policy', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const p1 = await batch(emu, part('S-1', 1, [upsertCategory('CAT-A'), upsertProduct('A-1', 'CAT-A')]));
    expect(p1.body.data.snapshot).toEqual({ snapshot_id: 'S-1', part: 1, status: 'open', deactivated: 0, reason: null });
    expect((await activeCodes()).products).toEqual(['A-1', 'A-2', 'B-1']);
    const p2 = await batch(emu, part('S-1', 2, [upsertProduct('A-2', 'CAT-A')], true));
    expect(p2.body.data.snapshot).toEqual({ snapshot_id: 'S-1', part: 2, status: 'completed', deactivated: 2, reason: null });
    expect(p2.body.data.sync_run_id).toBe(p1.body.data.sync_run_id);
    expect(await activeCodes()).toEqual({ products: ['A-1', 'A-2'], categories: ['CAT-A'] });
  });

  it('answers 409 snapshot_out_of_order with details.expected_part', async () => {
    const skipped = await batch(emu, part('S-2', 2, [upsertCategory('CAT-A')]));
    expect(skipped.status).toBe(409);
    expect(skipped.body.error).toMatchObject({ code: 'snapshot_out_of_order', details: { expected_part: 1 } });
    await batch(emu, part('S-2', 1, [upsertCategory('CAT-A')]));
    const jump = await batch(emu, part('S-2', 3, [upsertCategory('CAT-B')]));
    expect(jump.status).toBe(409);
    expect(jump.body.error).toMatchObject({ code: 'snapshot_out_of_order', details: { expected_part: 2 } });
    expect((await allCategories(emu)).map((c) => c.external_id)).toEqual(['CAT-A']);
  });

  it('replays an already applied part (under a new Idempotency-Key) without applying it twice', async () => {
    await publishCatalog();
    const body = part('S-3', 1, [upsertProduct('A-1', 'CAT-A', { price: '20000' })]);
    const first = await batch(emu, body);
    await emu.api('PATCH', '/catalog/products/A-1', { body: { price: '1' } });
    const again = await batch(emu, body, { key: newKey('again') });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await allProducts(emu)).find((p) => p.external_id === 'A-1').price).toBe('1');
  });

  it('answers 409 to another body under an applied part number', async () => {
    await batch(emu, part('S-4', 1, [upsertCategory('CAT-A')]));
    const res = await batch(emu, part('S-4', 1, [upsertCategory('CAT-Z')]));
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'snapshot_out_of_order', details: { expected_part: 2 } });
  });

  it('answers 409 snapshot_closed to a new part of a completed snapshot, and replays its last part', async () => {
    const last = part('S-5', 1, [upsertCategory('CAT-A')], true);
    const done = await batch(emu, last);
    expect(done.body.data.snapshot.status).toBe('completed');
    const more = await batch(emu, part('S-5', 2, [upsertCategory('CAT-B')], true));
    expect(more.status).toBe(409);
    expect(more.body.error.code).toBe('snapshot_closed');
    const replay = await batch(emu, last);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual(done.body.data);
  });

  it('expires 2 hours after its first part without deactivating anything, then answers snapshot_closed', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const first = part('S-6', 1, [upsertCategory('CAT-A')]);
    await batch(emu, first);
    await emu.control('POST', '/clock/advance', { seconds: 2 * 3600 });
    const late = await batch(emu, part('S-6', 2, [upsertProduct('A-1', 'CAT-A')], true));
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('snapshot_closed');
    expect((await activeCodes()).products).toEqual(['A-1', 'A-2', 'B-1']);
    const replay = await batch(emu, first);
    expect(replay.body.data.snapshot).toMatchObject({ snapshot_id: 'S-6', part: 1, status: 'expired', deactivated: 0 });
  });

  it('still accepts the next part 1 h 59 min after the first', async () => {
    await batch(emu, part('S-7', 1, [upsertCategory('CAT-A')]));
    await emu.control('POST', '/clock/advance', { seconds: 2 * 3600 - 60 });
    const res = await batch(emu, part('S-7', 2, [upsertCategory('CAT-B')], true));
    expect(res.status).toBe(200);
    expect(res.body.data.snapshot.status).toBe('completed');
  });

  it('deactivates nothing when an operation of an earlier part failed, with reason failed_operations', async () => {
    await publishCatalog();
    await setPolicy('deactivate');
    const p1 = await batch(emu, part('S-8', 1, [upsertCategory('CAT-A'), { op: 'explode', external_id: 'A-2' }]));
    expect(p1.body.data.summary.failed).toBe(1);
    const p2 = await batch(emu, part('S-8', 2, [upsertProduct('A-1', 'CAT-A')], true));
    expect(p2.body.data.summary.failed).toBe(0);
    expect(p2.body.data.snapshot).toMatchObject({ status: 'completed', deactivated: 0, reason: 'failed_operations' });
    expect((await activeCodes()).products).toEqual(['A-1', 'A-2', 'B-1']);
  });

  it('keeps snapshots of different integrations apart even under the same snapshot_id', async () => {
    const other = await emu.control('POST', '/stores', { environment: 'test' });
    await batch(emu, part('SAME', 1, [upsertCategory('CAT-A')]));
    const theirs = await batch(emu, part('SAME', 1, [upsertCategory('CAT-X')]), { credential: other.body.data.credential });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.snapshot).toMatchObject({ snapshot_id: 'SAME', part: 1, status: 'open' });
  });

  it('answers 422 to snapshot_id without snapshot_part', async () => {
    const res = await batch(emu, { full_snapshot: true, snapshot_id: 'S-9', operations: [upsertCategory('CAT-A')] });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: any) => d.field)).toEqual(['snapshot_part']);
  });
});
