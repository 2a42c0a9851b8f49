import type { z } from 'zod';
import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { BATCH_OPS, batchOperationTyped, type BatchResultItem, type UpsertResult } from '../../src/contract/catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { IntegrationRecord } from '../stores/repository.js';
import { deactivateCategory, upsertCategory } from './categories.js';
import { deactivateProduct, patchProduct, upsertProduct } from './products.js';
import { patchOption } from './options.js';

type BatchOp = (typeof BATCH_OPS)[number];
type Operation = z.output<typeof batchOperationTyped>;

/** Operations run between two yields to the event loop (so that a second batch meets the first). */
export const BATCH_CHUNK = 50;

// spec: Batch request — `data` is the same body as the single endpoint (its command validates it);
// absent for deactivations.
const TAKES_DATA: Record<BatchOp, boolean> = {
  upsert_category: true,
  deactivate_category: false,
  upsert_product: true,
  patch_product: true,
  deactivate_product: false,
  patch_option: true,
};

/**
 * Reads the operation's own fields with the contract. A problem there (unknown `op`, bad
 * `external_id`, `data` missing or not allowed) is a 422 of that operation only.
 */
export function readOperation(raw: unknown): Operation {
  const op = parseOrThrow(batchOperationTyped, raw);
  const issues: FieldIssue[] = [];
  if (!TAKES_DATA[op.op] && op.data !== undefined) {
    issues.push({ field: 'data', code: 'not_allowed', message: 'Las desactivaciones no llevan data.' });
  }
  if (TAKES_DATA[op.op] && op.data === undefined) issues.push({ field: 'data', code: 'required', message: 'El campo es obligatorio.' });
  if (op.link_to_id !== undefined && op.op !== 'upsert_product') {
    issues.push({ field: 'link_to_id', code: 'not_allowed', message: 'link_to_id solo se admite en upsert_product.' });
  }
  if (issues.length > 0) throw ApiError.validation(issues);
  return op;
}

/** Applies one valid operation through the catalog service, in `tx`. */
async function apply(env: EnvContext, tx: Tx, integration: IntegrationRecord, op: Operation): Promise<UpsertResult> {
  const code = op.external_id;
  switch (op.op) {
    case 'upsert_category':
      return (await upsertCategory(env, tx, integration, code, op.data)).result;
    case 'deactivate_category':
      return deactivateCategory(env, tx, integration, code);
    case 'upsert_product':
      return (await upsertProduct(env, tx, integration, code, op.data, op.link_to_id)).result;
    case 'patch_product':
      return patchProduct(env, tx, integration, code, op.data);
    case 'deactivate_product':
      return deactivateProduct(env, tx, integration, code);
    case 'patch_option':
      return patchOption(env, tx, integration, code, op.data);
  }
}

// The command's own arguments: the code in the path and link_to_id. Any other field it reports is
// one of `data` (an unknown field too, even one called `external_id`: the operation's own fields
// were read before the command ran).
const OPERATION_FIELDS = new Set(['external_id', 'link_to_id']);

/**
 * A command's validation fields are relative to `data`; the batch reports them relative to the
 * operation (`option_groups.0.name` → `data.option_groups.0.name`).
 */
export function serviceDetails(details: ApiError['details']): ApiError['details'] {
  if (!Array.isArray(details)) return details;
  return details.map((d) =>
    OPERATION_FIELDS.has(d.field) && d.code !== 'unknown_field' ? d : { ...d, field: d.field ? `data.${d.field}` : 'data' },
  );
}

/** An operation's `error`: only validation errors carry `details` here, a list per field (the contract's `batchOperationError`). */
function errorBody(error: ApiError, details: ApiError['details']): NonNullable<BatchResultItem['error']> {
  return Array.isArray(details) ? { code: error.code, message: error.message, details } : { code: error.code, message: error.message };
}

function externalIdOf(raw: unknown): string | null {
  const value = raw !== null && typeof raw === 'object' ? (raw as { external_id?: unknown }).external_id : undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * Runs one operation and says how it went. An `ApiError` fails only this operation; anything else
 * is a defect and stops the batch (a 500: what was applied stays, and the request may be repeated).
 */
export async function runOperation(env: EnvContext, integration: IntegrationRecord, raw: unknown, index: number): Promise<BatchResultItem> {
  const failed = (error: NonNullable<BatchResultItem['error']>): BatchResultItem =>
    ({ index, external_id: externalIdOf(raw), result: 'error', id: null, error });
  let op: Operation;
  try {
    op = readOperation(raw);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return failed(errorBody(error, error.details));
  }
  try {
    // Each operation commits on its own: one that fails changes nothing, the others stay.
    const result = await env.store.tx((tx) => apply(env, tx, integration, op));
    return { index, external_id: result.external_id, result: result.result, id: result.id };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return failed(errorBody(error, serviceDetails(error.details)));
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * spec: Batch request — operations in the order sent, each committed on its own, a failure does not
 * stop the rest. Yields to the event loop every `chunk` operations.
 */
export async function runOperations(
  env: EnvContext,
  integration: IntegrationRecord,
  operations: unknown[],
  chunk = BATCH_CHUNK,
): Promise<BatchResultItem[]> {
  const results: BatchResultItem[] = [];
  for (let i = 0; i < operations.length; i++) {
    if (i > 0 && i % chunk === 0) await yieldToEventLoop();
    results.push(await runOperation(env, integration, operations[i], i));
  }
  return results;
}

export function summarize(results: BatchResultItem[]) {
  const failed = results.filter((r) => r.result === 'error').length;
  return { total: results.length, succeeded: results.length - failed, failed };
}
