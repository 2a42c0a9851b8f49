import type { Facts } from '../../src/contract/observation.js';

// What the observer keeps of a request (and, for a batch, of its answer): whitelisted counts,
// flags, codes and statuses, none of them secret. Anything else keeps only its digest.

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined && o[k] !== null;
const objectOf = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** How many sold-out codes of one batch are kept: the task names one product, a person sends few. */
export const SOLD_OUT_KEPT = 20;

/**
 * The facts the observer grades by, per endpoint. A catalog write's `sold_out` says it marks the
 * item sold out (`available: false`); `price`/`available` say the field was sent.
 */
export function factsOf(method: string, path: string, body: unknown, previousStatus: string | null): Facts | null {
  const b = objectOf(body);
  if (method === 'PUT' && path.startsWith('/catalog/products/')) {
    return { option_groups: Array.isArray(b.option_groups) ? b.option_groups.length : 0, sold_out: b.available === false };
  }
  if (method === 'PATCH' && (path.startsWith('/catalog/products/') || path.startsWith('/catalog/options/'))) {
    return { price: has(b, 'price'), available: has(b, 'available'), sold_out: b.available === false };
  }
  if (method === 'POST' && path === '/catalog/batch') {
    return {
      full_snapshot: b.full_snapshot === true,
      snapshot_id: str(b.snapshot_id),
      snapshot_part: typeof b.snapshot_part === 'number' ? b.snapshot_part : null,
      snapshot_last: b.snapshot_last === true,
      operations: Array.isArray(b.operations) ? b.operations.length : 0,
    };
  }
  if (method !== 'POST' || !path.startsWith('/orders/')) return null;
  if (path.endsWith('/ack')) return { external_id: str(b.external_id) };
  if (path.endsWith('/import-failure')) return { code: str(b.code) };
  if (path.endsWith('/status')) {
    return { status: str(b.status), estimated_minutes: has(b, 'estimated_minutes'), reason: has(b, 'reason'), previous_status: previousStatus };
  }
  return null;
}

/** One batch operation, as far as grading cares (DESIGN: a batch operation counts as the single endpoint it stands for). */
export interface BatchOp {
  op: string;
  external_id: string | null;
  /** upsert_product with at least one option group. */
  options: boolean;
  price: boolean;
  available: boolean;
  sold_out: boolean;
}

/** The operations of a batch request, read in the pre-handler (kept only until the answer is sent). */
export function batchOpsOf(body: unknown): BatchOp[] | null {
  const ops = objectOf(body).operations;
  if (!Array.isArray(ops)) return null;
  return ops.map((raw) => {
    const o = objectOf(raw);
    const data = objectOf(o.data);
    return {
      op: str(o.op) ?? '',
      external_id: str(o.external_id),
      options: Array.isArray(data.option_groups) && data.option_groups.length > 0,
      price: has(data, 'price'),
      available: has(data, 'available'),
      sold_out: data.available === false,
    };
  });
}

const PATCHES = new Set(['patch_product', 'patch_option']);

/**
 * What a batch's 2xx answer adds to its facts: per kind, the operations that succeeded (anything
 * but `result: "error"`), the sold-out product codes (up to SOLD_OUT_KEPT, one per line), the
 * failed count and the snapshot's state.
 */
export function batchAnswerFacts(ops: BatchOp[], payload: string): Facts {
  let data: Record<string, unknown>;
  try {
    data = objectOf(objectOf(JSON.parse(payload)).data);
  } catch {
    return {};
  }
  const results = Array.isArray(data.results) ? data.results.map(objectOf) : [];
  const succeeded = results.filter((r) => r.result !== 'error' && typeof r.index === 'number').map((r) => ops[r.index as number]).filter((o): o is BatchOp => o !== undefined);
  const soldOut = succeeded.filter((o) => o.sold_out && (o.op === 'patch_product' || o.op === 'upsert_product') && o.external_id).map((o) => o.external_id!);
  const snapshot = objectOf(data.snapshot);
  return {
    categories: succeeded.filter((o) => o.op === 'upsert_category').length,
    products_with_options: succeeded.filter((o) => o.op === 'upsert_product' && o.options).length,
    price_changes: succeeded.filter((o) => PATCHES.has(o.op) && o.price).length,
    availability_changes: succeeded.filter((o) => PATCHES.has(o.op) && o.available).length,
    sold_out: soldOut.slice(0, SOLD_OUT_KEPT).join('\n'),
    failed: typeof objectOf(data.summary).failed === 'number' ? (objectOf(data.summary).failed as number) : 0,
    snapshot_status: str(snapshot.status),
    snapshot_reason: str(snapshot.reason),
  };
}
