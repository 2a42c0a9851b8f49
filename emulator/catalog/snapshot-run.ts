import { ApiError } from '../../src/contract/errors.js';
import { EXTERNAL_ID_PATTERN } from '../../src/contract/limits.js';
import type { BatchResponse, BatchResultItem } from '../../src/contract/catalog.js';
import type { EnvContext } from '../context.js';
import type { IntegrationRecord } from '../data/integrations.js';
import type { SnapshotRow } from '../data/snapshots.js';
import * as catalog from './service.js';
import {
  decidePart,
  effectiveStatus,
  itemKindOf,
  planMissingItems,
  type LinkedItem,
  type SnapshotRequest,
  type SnapshotState,
} from './snapshot.js';
import { summarize } from './batch.js';

// The stateful side of full snapshots (the rules themselves are pure, in snapshot.ts).

export type SnapshotView = NonNullable<BatchResponse['snapshot']>;

/** A part about to run: the snapshot it belongs to and the run id shared by all its parts. */
export interface OpenPart {
  snapshotId: string;
  syncRunId: string;
  part: number;
  last: boolean;
  fingerprint: string;
}

export type PartStart = { kind: 'apply'; part: OpenPart } | { kind: 'replay'; data: BatchResponse };

const stateOf = (row: SnapshotRow): SnapshotState => ({ status: row.status, lastPart: row.last_part, startedAt: row.started_at });

/**
 * Decides, in one transaction, whether the part runs, replays or is refused (409), and records the
 * codes it sends: every code sent counts as present, failed operations included (rule 3).
 */
export function startPart(
  env: EnvContext,
  integration: IntegrationRecord,
  request: SnapshotRequest,
  operations: unknown[],
  fingerprint: string,
): PartStart {
  return env.tx(() => {
    const now = env.clock.now();
    // Without snapshot_id the sync run's id names the one-part snapshot.
    const newRunId = env.ids.next('syncRun');
    const key = { integration_id: integration.id, snapshot_id: request.snapshotId ?? newRunId };
    let row = env.snapshots.get.get(key);
    if (row && row.status === 'open' && effectiveStatus(stateOf(row), now) === 'expired') {
      env.snapshots.close.run({ ...key, status: 'expired', deactivated: 0, reason: null });
      row = { ...row, status: 'expired' };
    }
    const stored = row && request.part <= row.last_part ? env.snapshots.part.get({ ...key, part: request.part }) : undefined;
    const decision = decidePart(row && stateOf(row), request.part, fingerprint, stored?.fingerprint, now);
    if (decision.kind === 'reject') throw decision.error;
    if (decision.kind === 'replay') return { kind: 'replay', data: replayed(row!, stored!.response, request.part) };
    if (!row) {
      row = { ...key, sync_run_id: newRunId, status: 'open', last_part: 0, failed: 0, deactivated: 0, reason: null, started_at: now };
      env.snapshots.insert.run(row);
    }
    recordSent(env, key, operations);
    return {
      kind: 'apply',
      part: { snapshotId: key.snapshot_id, syncRunId: row.sync_run_id, part: request.part, last: request.last, fingerprint },
    };
  });
}

/** A repeated part: its stored results, with the snapshot's state as it is now. */
function replayed(row: SnapshotRow, response: string, part: number): BatchResponse {
  const data = JSON.parse(response) as BatchResponse;
  const status = row.status;
  data.snapshot = { snapshot_id: row.snapshot_id, part, status, deactivated: row.deactivated, reason: row.reason };
  return data;
}

function recordSent(env: EnvContext, key: { integration_id: string; snapshot_id: string }, operations: unknown[]): void {
  for (const raw of operations) {
    if (raw === null || typeof raw !== 'object') continue;
    const { op, external_id: code } = raw as { op?: unknown; external_id?: unknown };
    // A code that breaks the pattern cannot name any item, so it cannot keep one either.
    if (typeof code !== 'string' || !EXTERNAL_ID_PATTERN.test(code)) continue;
    env.snapshots.addItem.run({ ...key, kind: itemKindOf(op), external_id: code });
  }
}

/**
 * Closes a part in one transaction: its results are stored for repetitions, and at the last part the
 * missing-items policy runs (spec: Full snapshot rules 1–2), so a crash never leaves half of it.
 */
export function finishPart(env: EnvContext, integration: IntegrationRecord, part: OpenPart, results: BatchResultItem[]): BatchResponse {
  return env.tx(() => {
    const key = { integration_id: integration.id, snapshot_id: part.snapshotId };
    const summary = summarize(results);
    env.snapshots.finishPart.run({ ...key, part: part.part, failed: summary.failed });
    let snapshot: SnapshotView = { snapshot_id: part.snapshotId, part: part.part, status: 'open', deactivated: 0, reason: null };
    if (part.last) {
      const row = env.snapshots.get.get(key)!;
      const { deactivated, reason } = applyPolicy(env, integration, row);
      env.snapshots.close.run({ ...key, status: 'completed', deactivated, reason });
      snapshot = { ...snapshot, status: 'completed', deactivated, reason };
    }
    const data: BatchResponse = { summary, results, sync_run_id: part.syncRunId, snapshot };
    env.snapshots.insertPart.run({ ...key, part: part.part, fingerprint: part.fingerprint, response: JSON.stringify(data) });
    return data;
  });
}

const linked = (rows: { id: string; external_id: string; active: number }[]): LinkedItem[] =>
  rows.map((r) => ({ id: r.id, externalId: r.external_id, active: r.active === 1 }));

/**
 * The integration's `missing_items_policy`, read now (the merchant may have changed it meanwhile).
 * Products go first, so that a category left without active products can go too; a category that
 * still has active products (sent ones, or the merchant's own) stays, and that is not an error.
 */
function applyPolicy(env: EnvContext, integration: IntegrationRecord, row: SnapshotRow): { deactivated: number; reason: string | null } {
  const current = env.integrations.byId(integration.id) ?? integration;
  const sent = { category: new Set<string>(), product: new Set<string>() };
  for (const item of env.snapshots.items.all({ integration_id: row.integration_id, snapshot_id: row.snapshot_id })) {
    if (item.kind === 'category' || item.kind === 'any') sent.category.add(item.external_id);
    if (item.kind === 'product' || item.kind === 'any') sent.product.add(item.external_id);
  }
  const plan = planMissingItems({
    policy: current.settings.missing_items_policy,
    failed: row.failed,
    products: linked(env.snapshots.linkedProducts.all(integration.id)),
    categories: linked(env.snapshots.linkedCategories.all(integration.id)),
    sentProduct: (code) => sent.product.has(code),
    sentCategory: (code) => sent.category.has(code),
  });
  let deactivated = 0;
  for (const product of plan.products) {
    if (catalog.deactivateProduct(env, current, product.externalId).result === 'updated') deactivated += 1;
  }
  for (const category of plan.categories) {
    try {
      if (catalog.deactivateCategory(env, current, category.externalId).result === 'updated') deactivated += 1;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'category_not_empty') throw error;
    }
  }
  return { deactivated, reason: plan.reason };
}
