import type { Observation, RecordedCall } from '../../src/contract/observation.js';

/** The calls to grade (the session also asks before it opens a task). */
type Calls = Pick<Observation, 'calls'>;
import { callsTo, lastSegment, ok2xx } from './calls.js';

// DESIGN: the observer grades a correct ERP as correct — a successful batch operation counts as the
// single endpoint it stands for (upsert_category = PUT category, upsert_product with option groups
// = PUT product, patch_product/patch_option = the PATCHes), an option's availability is an
// availability change, and one snapshot part is a full snapshot (a part holds at most 500
// operations, so more parts are needed only for more than 500).

const n = (c: RecordedCall, key: string) => Number(c.facts?.[key] ?? 0);

/** The successful batches (their facts carry what each kind of operation achieved). */
const batches = (obs: Calls) => callsTo(obs, 'POST', '/catalog/batch').filter(ok2xx);

/** PATCH of a product or an option, 2xx. */
const patches = (obs: Calls) => [...callsTo(obs, 'PATCH', '/catalog/products/*'), ...callsTo(obs, 'PATCH', '/catalog/options/*')].filter(ok2xx);

const first = (calls: RecordedCall[]) => calls.sort((a, b) => a.seq - b.seq)[0];

/** A category upserted: PUT /catalog/categories/{code}, or a batch's upsert_category. */
export function categoryUpserted(obs: Calls): RecordedCall | undefined {
  return first([...callsTo(obs, 'PUT', '/catalog/categories/*').filter(ok2xx), ...batches(obs).filter((c) => n(c, 'categories') > 0)]);
}

/** A product with option groups upserted: PUT /catalog/products/{code}, or a batch's upsert_product. */
export function productWithOptions(obs: Calls): RecordedCall | undefined {
  const puts = callsTo(obs, 'PUT', '/catalog/products/*').filter((c) => ok2xx(c) && n(c, 'option_groups') > 0);
  return first([...puts, ...batches(obs).filter((c) => n(c, 'products_with_options') > 0)]);
}

/** A price changed: PATCH of a product or an option, or a batch's patch_product/patch_option. */
export function priceChanged(obs: Calls): RecordedCall | undefined {
  return first([...patches(obs).filter((c) => c.facts?.price === true), ...batches(obs).filter((c) => n(c, 'price_changes') > 0)]);
}

/**
 * An availability changed on the ERP's own initiative or not: `available` in a PATCH of a product
 * or an option (or their batch operations), or a product upserted as sold out. `since` (real ms)
 * leaves out earlier calls.
 */
export function availabilityChanged(obs: Calls, since = 0): RecordedCall | undefined {
  const soldOutPuts = callsTo(obs, 'PUT', '/catalog/products/*').filter((c) => ok2xx(c) && c.facts?.sold_out === true);
  const batchOnes = batches(obs).filter((c) => n(c, 'availability_changes') > 0 || Boolean(c.facts?.sold_out));
  return first([...patches(obs).filter((c) => c.facts?.available === true), ...soldOutPuts, ...batchOnes].filter((c) => c.at >= since));
}

/** The parts of full snapshots the API took (2xx), whatever became of them. */
export function snapshotParts(obs: Calls): RecordedCall[] {
  return batches(obs).filter((c) => c.facts?.full_snapshot === true);
}

/** A full snapshot that completed without failed operations (one part or several). */
export function completedSnapshot(obs: Calls): RecordedCall | undefined {
  return first(batches(obs).filter((c) => c.facts?.full_snapshot === true && c.facts.snapshot_status === 'completed' && c.facts.snapshot_reason !== 'failed_operations'));
}

/** The product `externalId` marked sold out after `since`: PATCH or PUT with `available: false`, or a batch operation that does it. */
export function markedSoldOut(obs: Calls, externalId: string, since: number): RecordedCall | undefined {
  const direct = [...callsTo(obs, 'PATCH', '/catalog/products/*'), ...callsTo(obs, 'PUT', '/catalog/products/*')].filter(
    (c) => ok2xx(c) && c.facts?.sold_out === true && lastSegment(c) === externalId,
  );
  const inBatch = batches(obs).filter((c) => String(c.facts?.sold_out ?? '').split('\n').includes(externalId));
  return first([...direct, ...inBatch].filter((c) => c.at >= since));
}

/** The product `externalId` removed from the menu (DELETE) after `since`: not what "sold out" means. */
export function removedFromMenu(obs: Calls, externalId: string, since: number): RecordedCall | undefined {
  return callsTo(obs, 'DELETE', '/catalog/products/*').find((c) => ok2xx(c) && c.at >= since && lastSegment(c) === externalId);
}
