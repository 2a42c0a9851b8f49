import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/contract/errors.js';
import { batchRequest } from '../../../src/contract/catalog.js';
import {
  decidePart,
  effectiveStatus,
  itemKindOf,
  planMissingItems,
  readSnapshotRequest,
  type SnapshotState,
} from '../../../emulator/catalog/snapshot.js';

const H = 3600_000;
const T0 = Date.UTC(2026, 10, 22, 12);
const open = (lastPart: number, startedAt = T0): SnapshotState => ({ status: 'open', lastPart, startedAt });

describe('effectiveStatus (spec: snapshot lifetime 2 hours)', () => {
  it.each([
    ['open, just started', open(1), T0, 'open'],
    ['open, 1 ms before 2 h', open(1), T0 + 2 * H - 1, 'open'],
    ['open, at 2 h', open(1), T0 + 2 * H, 'expired'],
    ['completed stays completed after 2 h', { status: 'completed', lastPart: 2, startedAt: T0 } as SnapshotState, T0 + 5 * H, 'completed'],
    ['expired stays expired', { status: 'expired', lastPart: 1, startedAt: T0 } as SnapshotState, T0, 'expired'],
  ])('%s', (_name, state, now, expected) => {
    expect(effectiveStatus(state, now)).toBe(expected);
  });
});

describe('decidePart (spec: parts in order from 1; repeating a part is safe)', () => {
  const completed: SnapshotState = { status: 'completed', lastPart: 2, startedAt: T0 };
  const expired: SnapshotState = { status: 'open', lastPart: 1, startedAt: T0 - 3 * H };
  it.each<[string, SnapshotState | undefined, number, string | undefined, string, Record<string, unknown>]>([
    ['part 1 of a new snapshot starts it', undefined, 1, undefined, 'apply', { start: true }],
    ['part 2 of a new snapshot expects part 1', undefined, 2, undefined, 'snapshot_out_of_order', { expected_part: 1 }],
    ['the next part applies', open(1), 2, undefined, 'apply', { start: false }],
    ['part 1 again after a crash in part 1 applies', open(0), 1, undefined, 'apply', { start: false }],
    ['a skipped part expects the next one', open(1), 3, undefined, 'snapshot_out_of_order', { expected_part: 2 }],
    ['an applied part with the same body replays', open(2), 1, 'same', 'replay', {}],
    ['an applied part number with another body is out of order', open(2), 1, 'other', 'snapshot_out_of_order', { expected_part: 3 }],
    ['a new part of a completed snapshot is closed', completed, 3, undefined, 'snapshot_closed', {}],
    ['an applied part of a completed snapshot replays', completed, 2, 'same', 'replay', {}],
    ['another body under an applied part of a completed snapshot is closed', completed, 1, 'other', 'snapshot_closed', {}],
    ['a new part of an expired snapshot is closed', expired, 2, undefined, 'snapshot_closed', {}],
    ['an out-of-order part of an expired snapshot is closed', expired, 5, undefined, 'snapshot_closed', {}],
    ['an applied part of an expired snapshot replays', expired, 1, 'same', 'replay', {}],
  ])('%s', (_name, state, part, stored, expected, extra) => {
    const decision = decidePart(state, part, 'same', stored, T0);
    if (decision.kind === 'reject') {
      expect(decision.error).toBeInstanceOf(ApiError);
      expect(decision.error.code).toBe(expected);
      if (expected === 'snapshot_out_of_order') expect(decision.error.details).toEqual(extra);
      else expect(decision.error.details).toBeUndefined();
    } else {
      expect(decision).toEqual({ kind: expected, ...extra });
    }
  });
});

describe('planMissingItems (spec: Full snapshot rules 1–3)', () => {
  const products = [
    { id: 'p1', externalId: 'SENT', active: true },
    { id: 'p2', externalId: 'MISSING', active: true },
    { id: 'p3', externalId: 'MISSING-INACTIVE', active: false },
  ];
  const categories = [
    { id: 'c1', externalId: 'CAT-SENT', active: true },
    { id: 'c2', externalId: 'CAT-MISSING', active: true },
  ];
  const base = {
    products,
    categories,
    sentProduct: (code: string) => code === 'SENT',
    sentCategory: (code: string) => code === 'CAT-SENT',
  };
  it.each([
    ['keep does nothing', { policy: 'keep', failed: 0 }, [], [], null],
    ['deactivate takes the active linked items not sent', { policy: 'deactivate', failed: 0 }, ['p2'], ['c2'], null],
    ['any failed operation deactivates nothing and says why', { policy: 'deactivate', failed: 1 }, [], [], 'failed_operations'],
    ['failures are reported with keep too', { policy: 'keep', failed: 3 }, [], [], 'failed_operations'],
  ] as const)('%s', (_name, input, productIds, categoryIds, reason) => {
    const plan = planMissingItems({ ...base, ...input });
    expect(plan.products.map((p) => p.id)).toEqual(productIds);
    expect(plan.categories.map((c) => c.id)).toEqual(categoryIds);
    expect(plan.reason).toBe(reason);
  });
});

describe('readSnapshotRequest', () => {
  const ops = [{ op: 'upsert_category', externalId: 'C', data: { name: 'C' } }];
  const read = (extra: Record<string, unknown>) => readSnapshotRequest(batchRequest.parse({ operations: ops, ...extra }));
  const fieldsOf = (extra: Record<string, unknown>) => {
    try {
      read(extra);
      return null;
    } catch (error) {
      return ((error as ApiError).details as { field: string }[]).map((d) => d.field);
    }
  };

  it.each([
    ['a plain batch', {}, null],
    ['full_snapshot false', { full_snapshot: false }, null],
    ['a one-part snapshot', { full_snapshot: true }, { snapshotId: null, part: 1, last: true }],
    ['a one-part snapshot that says part 1, last', { full_snapshot: true, snapshot_part: 1, snapshot_last: true }, { snapshotId: null, part: 1, last: true }],
    ['a part of a named snapshot', { full_snapshot: true, snapshot_id: 'S-1', snapshot_part: 2 }, { snapshotId: 'S-1', part: 2, last: false }],
    ['the last part of a named snapshot', { full_snapshot: true, snapshot_id: 'S-1', snapshot_part: 3, snapshot_last: true }, { snapshotId: 'S-1', part: 3, last: true }],
  ])('reads %s', (_name, extra, expected) => {
    expect(read(extra)).toEqual(expected);
  });

  it.each([
    ['snapshot fields without full_snapshot', { snapshot_id: 'S-1', snapshot_part: 1 }, ['snapshot_id', 'snapshot_part']],
    ['snapshot_last without full_snapshot', { full_snapshot: false, snapshot_last: true }, ['snapshot_last']],
    ['part 2 without snapshot_id', { full_snapshot: true, snapshot_part: 2 }, ['snapshot_part']],
    ['snapshot_last false without snapshot_id', { full_snapshot: true, snapshot_last: false }, ['snapshot_last']],
    ['snapshot_id without snapshot_part', { full_snapshot: true, snapshot_id: 'S-1' }, ['snapshot_part']],
  ])('refuses %s with 422 details', (_name, extra, fields) => {
    expect(fieldsOf(extra)).toEqual(fields);
  });
});

describe('itemKindOf', () => {
  it.each([
    ['upsert_category', 'category'],
    ['deactivate_category', 'category'],
    ['upsert_product', 'product'],
    ['patch_product', 'product'],
    ['deactivate_product', 'product'],
    ['patch_option', 'option'],
    ['explode', 'any'],
    [42, 'any'],
  ])('%s names a %s', (op, kind) => {
    expect(itemKindOf(op)).toBe(kind);
  });
});
