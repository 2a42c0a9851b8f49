import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { LIMITS } from '../../src/contract/limits.js';
import type { BatchRequest } from '../../src/contract/catalog.js';

// Pure rules of the full catalog snapshot (spec: Batch request and response, Full snapshot rules;
// States, Full catalog snapshot), table-tested in test/emulator/catalog/snapshot-rules.test.ts.

export type SnapshotStatus = 'open' | 'completed' | 'expired';
export type MissingItemsPolicy = 'keep' | 'deactivate';
/** Why nothing was deactivated at the last part. */
export type SnapshotReason = 'failed_operations';

/** What a request asks of the snapshot machinery, once its envelope is read. */
export interface SnapshotRequest {
  /** null: a one-part snapshot without `snapshot_id` (DESIGN); the sync run id stands in for it. */
  snapshotId: string | null;
  part: number;
  last: boolean;
}

/** The stored state of one snapshot. */
export interface SnapshotState {
  status: SnapshotStatus;
  /** The last part applied to the end (0 while part 1 has not finished). */
  lastPart: number;
  startedAt: number;
}

const notAllowed = (field: string): FieldIssue => ({
  field,
  code: 'not_allowed',
  message: 'Solo se admite con full_snapshot: true.',
});

/**
 * Reads the snapshot fields of a batch envelope: `null` for a plain batch, else the part asked for.
 * Contradictory fields are a request-level 422 (nothing is applied).
 */
export function readSnapshotRequest(body: BatchRequest): SnapshotRequest | null {
  const { full_snapshot: full, snapshot_id: id, snapshot_part: part, snapshot_last: last } = body;
  if (!full) {
    const issues = (['snapshot_id', 'snapshot_part', 'snapshot_last'] as const).filter((f) => body[f] !== undefined).map(notAllowed);
    if (issues.length > 0) throw ApiError.validation(issues);
    return null;
  }
  if (id === undefined) {
    // A one-part snapshot: it is part 1 and the last one.
    const issues: FieldIssue[] = [];
    if (part !== undefined && part !== 1) {
      issues.push({ field: 'snapshot_part', code: 'invalid', message: 'Sin snapshot_id la instantánea tiene una sola parte: snapshot_part debe ser 1.' });
    }
    if (last === false) {
      issues.push({ field: 'snapshot_last', code: 'invalid', message: 'Sin snapshot_id la instantánea tiene una sola parte: snapshot_last debe ser true.' });
    }
    if (issues.length > 0) throw ApiError.validation(issues);
    return { snapshotId: null, part: 1, last: true };
  }
  if (part === undefined) throw ApiError.field('snapshot_part', 'required', 'Con snapshot_id indique snapshot_part (desde 1).');
  return { snapshotId: id, part, last: last ?? false };
}

/** spec: Limits, snapshot lifetime — an open snapshot expires 2 hours after its first part. */
export function effectiveStatus(state: SnapshotState, now: number): SnapshotStatus {
  if (state.status === 'open' && now >= state.startedAt + LIMITS.snapshotLifetimeMs) return 'expired';
  return state.status;
}

export type PartDecision =
  | { kind: 'apply'; start: boolean }
  | { kind: 'replay' }
  | { kind: 'reject'; error: ApiError };

/**
 * What to do with part `part` of a snapshot (spec: parts in order from 1, repeating a part is safe):
 * apply it, replay the stored results of an already applied part, or refuse it. `storedFingerprint`
 * is the fingerprint of the part already applied under that number, if any; a different body under
 * an applied number is not a repetition, so it is refused like a new part.
 */
export function decidePart(
  state: SnapshotState | undefined,
  part: number,
  fingerprint: string,
  storedFingerprint: string | undefined,
  now: number,
): PartDecision {
  if (!state) {
    return part === 1 ? { kind: 'apply', start: true } : { kind: 'reject', error: outOfOrder(1) };
  }
  const status = effectiveStatus(state, now);
  if (part <= state.lastPart && storedFingerprint === fingerprint) return { kind: 'replay' };
  if (status !== 'open') return { kind: 'reject', error: ApiError.of('snapshot_closed') };
  if (part === state.lastPart + 1) return { kind: 'apply', start: false };
  return { kind: 'reject', error: outOfOrder(state.lastPart + 1) };
}

function outOfOrder(expected: number): ApiError {
  return ApiError.of('snapshot_out_of_order', { expected_part: expected });
}

/** A linked item (external_id not null) of the integration, as the policy sees it. */
export interface LinkedItem {
  id: string;
  externalId: string;
  active: boolean;
}

export interface MissingItemsInput {
  policy: MissingItemsPolicy;
  /** Operations that failed over every part of the snapshot. */
  failed: number;
  products: LinkedItem[];
  categories: LinkedItem[];
  /** Whether the snapshot sent this code as a product (or category). */
  sentProduct(externalId: string): boolean;
  sentCategory(externalId: string): boolean;
}

export interface MissingItemsPlan {
  /** Active linked items not sent, to deactivate: products first, then categories. */
  products: LinkedItem[];
  categories: LinkedItem[];
  reason: SnapshotReason | null;
}

/**
 * spec: Full snapshot rules 1–3 — at the last part, only if no operation of any part failed, the
 * policy applies: `keep` does nothing, `deactivate` deactivates every linked item not sent
 * (DESIGN: categories too). With failures nothing is deactivated and the reason says so.
 */
export function planMissingItems(input: MissingItemsInput): MissingItemsPlan {
  if (input.failed > 0) return { products: [], categories: [], reason: 'failed_operations' };
  if (input.policy === 'keep') return { products: [], categories: [], reason: null };
  return {
    products: input.products.filter((p) => p.active && !input.sentProduct(p.externalId)),
    categories: input.categories.filter((c) => c.active && !input.sentCategory(c.externalId)),
    reason: null,
  };
}

/** The kind of item an operation names, for the snapshot's set of sent codes. */
export type ItemKind = 'category' | 'product' | 'option' | 'any';

/** An operation whose `op` is unknown still makes its code present, whatever it names (rule 3). */
export function itemKindOf(op: unknown): ItemKind {
  switch (op) {
    case 'upsert_category':
    case 'deactivate_category':
      return 'category';
    case 'upsert_product':
    case 'patch_product':
    case 'deactivate_product':
      return 'product';
    case 'patch_option':
      return 'option';
    default:
      return 'any';
  }
}
