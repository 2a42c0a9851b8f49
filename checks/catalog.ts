import type { Check } from './check.js';
import { callsTo, expired, ok2xx, stepEvidence } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import type { Observation, RecordedCall } from './observation.js';
import { fail, pass, pending, type Evidence } from './types.js';

/** The full snapshot in two parts of the observed batches: part 1 (not last), then a last part ≥ 2 of the same id. */
export function twoPartSnapshot(batches: RecordedCall[]): [RecordedCall, RecordedCall] | null {
  const good = batches.filter((c) => ok2xx(c) && c.facts?.full_snapshot === true && typeof c.facts.snapshot_id === 'string');
  for (const first of good.filter((c) => c.facts!.snapshot_part === 1 && c.facts!.snapshot_last !== true)) {
    const last = good.find((c) => c.seq > first.seq && c.facts!.snapshot_id === first.facts!.snapshot_id && Number(c.facts!.snapshot_part) >= 2 && c.facts!.snapshot_last === true);
    if (last) return [first, last];
  }
  return null;
}

function observed(obs: Observation) {
  const category = callsTo(obs, 'PUT', '/catalog/categories/*').find(ok2xx);
  const product = callsTo(obs, 'PUT', '/catalog/products/*').find((c) => ok2xx(c) && Number(c.facts?.option_groups ?? 0) > 0);
  const patches = callsTo(obs, 'PATCH', '/catalog/products/*').filter(ok2xx);
  const price = patches.find((c) => c.facts?.price === true);
  const available = patches.find((c) => c.facts?.available === true);
  const snapshot = twoPartSnapshot(callsTo(obs, 'POST', '/catalog/batch'));
  return { category, product, price, available, snapshot };
}

export const catalog: Check = {
  id: 'catalog',
  title: 'Catalog: category, product with options, PATCH, two-part full snapshot',
  area: 'catalog',
  mandatory: true,
  rule: 'Endpoints (catalog) and Full snapshot rules: PUT a category and a product with option groups by external_id, PATCH price and availability, and send a full snapshot in parts in order (1…n, snapshot_last on the last).',

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
    log.judge(ok, 'every operation succeeded, snapshot completed', `${failed} failed operation(s), snapshot ${status}`);
    if (!ok) return fail(`the snapshot did not complete cleanly: ${failed} failed operation(s), status ${status}`, log.items);
    return pass('category, product with options, PATCH and a two-part full snapshot all succeeded', log.items);
  },

  grade(obs) {
    const seen = observed(obs);
    const evidence: Evidence[] = [];
    const step = (label: string, c: RecordedCall | undefined) => evidence.push(stepEvidence(label, c, 'a successful call'));
    step('PUT a category', seen.category);
    step('PUT a product with option groups', seen.product);
    step('PATCH a product price', seen.price);
    step('PATCH a product availability', seen.available);
    step('full snapshot part 1', seen.snapshot?.[0]);
    step('full snapshot last part (≥ 2)', seen.snapshot?.[1]);
    const missing = evidence.filter((e) => !e.ok).map((e) => e.step);
    if (missing.length === 0) return pass('category, product with options, price and availability PATCH and a two-part full snapshot seen', evidence);
    const text = `missing: ${missing.join('; ')}`;
    return expired(obs) ? fail(text, evidence) : pending(text, evidence);
  },
};
