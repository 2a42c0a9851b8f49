import type { Check } from './check.js';
import { expired, missingSteps, PUBLISH_FIRST, repeatedRefusal, stepEvidence } from './internal/calls.js';
import { availabilityChanged, categoryUpserted, completedSnapshot, priceChanged, productWithOptions, snapshotParts } from './internal/catalog-steps.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import type { RecordedCall } from '../src/contract/observation.js';
import { gradeTasks } from './tasks.js';
import { fail, pass, type Evidence } from './types.js';
import { plural } from '../src/text/plural.js';

export const catalog: Check = {
  id: 'catalog',
  title: 'Catalog: category, product with options, price and availability changes, full snapshot',
  area: 'catalog',
  mandatory: true,
  rule: 'Endpoints (catalog), Batch request and Full snapshot rules: publish a category and a product with option groups by external_id, change a price and an availability; a full snapshot, when sent, completes (in parts in order, 1…n with snapshot_last on the last, when it has more than 500 operations); a batch operation counts as the single endpoint it stands for.',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    const id = (s: string) => `mkh-${s}-${ctx.runId}`;
    const category = await log.call('PUT category', (o) => ctx.client.catalog.categories.put(id('cat'), { name: 'Homologation', position: 100000 }, o));
    if (!category.ok) return fail(`PUT /catalog/categories failed: ${describeError(category.error)}`, log.items);
    const product = {
      name: 'Homologation burger',
      category_external_id: id('cat'),
      price: '25000',
      option_groups: [
        { external_id: id('ogr'), name: 'Size', min_select: 0, max_select: 1, options: [{ external_id: id('opt'), name: 'Large', price: '5000' }] },
      ],
    };
    const put = await log.call('PUT product with an option group', (o) => ctx.client.catalog.products.put(id('prd'), product, o));
    if (!put.ok) return fail(`PUT /catalog/products failed: ${describeError(put.error)}`, log.items);
    const patch = await log.call('PATCH price and availability', (o) => ctx.client.catalog.products.patch(id('prd'), { price: '26000', available: true }, o));
    if (!patch.ok) return fail(`PATCH /catalog/products failed: ${describeError(patch.error)}`, log.items);
    const snapshotId = id('snap');
    const op = (n: string) => ({ op: 'upsert_product' as const, external_id: id(n), data: { ...product, option_groups: undefined, name: `Homologation ${n}` } });
    const part1 = await log.call('batch: full snapshot part 1', (o) =>
      ctx.client.catalog.batch({ full_snapshot: true, snapshot_id: snapshotId, snapshot_part: 1, snapshot_last: false, operations: [{ op: 'upsert_category', external_id: id('cat'), data: { name: 'Homologation', position: 100000 } }, op('prd')] }, o),
    );
    if (!part1.ok) return fail(`batch part 1 failed: ${describeError(part1.error)}`, log.items);
    const part2 = await log.call('batch: full snapshot part 2 (last)', (o) =>
      ctx.client.catalog.batch({ full_snapshot: true, snapshot_id: snapshotId, snapshot_part: 2, snapshot_last: true, operations: [op('prd2')] }, o),
    );
    if (!part2.ok) return fail(`batch part 2 failed: ${describeError(part2.error)}`, log.items);
    const failed = (part1.value.summary.failed ?? 0) + (part2.value.summary.failed ?? 0);
    const status = (part2.value as { snapshot?: { status?: string } }).snapshot?.status ?? 'completed';
    const ok = failed === 0 && status === 'completed';
    log.judge(ok, 'every operation succeeded, snapshot completed', `${plural(failed, 'failed operation')}, snapshot ${status}`);
    if (!ok) return fail(`the snapshot did not complete cleanly: ${plural(failed, 'failed operation')}, status ${status}`, log.items);
    return pass('category, product with options, PATCH and a two-part full snapshot all succeeded', log.items);
  },

  grade(obs) {
    const writes = obs.calls.filter((c) => c.path.startsWith('/catalog/') && c.method !== 'GET');
    const wrong = repeatedRefusal(obs, writes, 'a catalog write');
    if (wrong) return wrong;
    // DESIGN: Nothing to grade — a store without an active product of the ERP is the one cause to name.
    if (obs.session.waiting === PUBLISH_FIRST && expired(obs)) return fail(`no active product: ${PUBLISH_FIRST}`, []);
    const evidence: Evidence[] = [];
    const step = (label: string, c: RecordedCall | undefined) => evidence.push(stepEvidence(label, c, 'a successful call'));
    step('category upserted (PUT or batch upsert_category)', categoryUpserted(obs));
    step('product with option groups upserted (PUT or batch upsert_product)', productWithOptions(obs));
    step('price changed (PATCH or batch patch_product/patch_option)', priceChanged(obs));
    const task = gradeTasks(obs).find((t) => t.action === 'mark_unavailable');
    const availability = availabilityChanged(obs);
    if (availability || !task) step('availability changed (product or option, PATCH, batch or a sold-out upsert)', availability);
    else evidence.push({ step: `task ${task.id}: mark_unavailable ${task.external_id}`, ok: task.status === 'done', expected: 'the product marked sold out from the ERP', actual: task.reason ?? task.status });
    // The spec offers full snapshots; it does not oblige an ERP that publishes item by item to send one.
    const label = 'full snapshot completed (one part up to 500 operations, or parts in order)';
    if (snapshotParts(obs).length) step(label, completedSnapshot(obs));
    else evidence.push({ step: label, ok: true, expected: 'a completed one, when the ERP sends full snapshots', actual: 'none sent (the ERP publishes item by item)' });
    if (task?.status === 'failed') return fail(`task ${task.id} (mark_unavailable) was done wrongly: ${task.reason}`, evidence);
    if (evidence.every((e) => e.ok)) return pass('category, product with options, a price and an availability change seen, and every full snapshot sent completed', evidence);
    return missingSteps(obs, evidence);
  },
};
