import { ApiError } from '../../src/contract/errors.js';
import { EXTERNAL_ID_PATTERN } from '../../src/contract/limits.js';
import type { BatchResponse, BatchResultItem } from '../../src/contract/catalog.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { IntegrationRecord } from '../stores/repository.js';
import type { SnapshotKey, SnapshotRecord } from './repository.js';
import { deactivateCategory } from './categories.js';
import { deactivateProduct } from './products.js';
import {
  decidePart,
  effectiveStatus,
  itemKindOf,
  planMissingItems,
  type ItemKind,
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

const stateOf = (row: SnapshotRecord): SnapshotState => ({ status: row.status, lastPart: row.lastPart, startedAt: row.startedAt });

/**
 * Decides, in one transaction, whether the part runs, replays or is refused (409), and records the
 * codes it sends: every code sent counts as present, failed operations included (rule 3).
 */
export async function startPart(
  env: EnvContext,
  integration: IntegrationRecord,
  request: SnapshotRequest,
  operations: unknown[],
  fingerprint: string,
): Promise<PartStart> {
  return env.store.tx(async (tx) => {
    const now = env.clock.now();
    // Without snapshot_id the sync run's id names the one-part snapshot.
    const newRunId = env.ids.next('syncRun');
    const key: SnapshotKey = { integrationId: integration.id, snapshotId: request.snapshotId ?? newRunId };
    let row = await tx.snapshots.get(key, { lock: true });
    if (row && row.status === 'open' && effectiveStatus(stateOf(row), now) === 'expired') {
      await tx.snapshots.close(key, 'expired', 0, null);
      row = { ...row, status: 'expired' };
    }
    const stored = row && request.part <= row.lastPart ? await tx.snapshots.part(key, request.part) : undefined;
    const decision = decidePart(row && stateOf(row), request.part, fingerprint, stored?.fingerprint, now);
    if (decision.kind === 'reject') throw decision.error;
    if (decision.kind === 'replay') return { kind: 'replay', data: replayed(row!, stored!.response, request.part) };
    if (!row) {
      row = { ...key, syncRunId: newRunId, status: 'open', lastPart: 0, failed: 0, deactivated: 0, reason: null, startedAt: now };
      await tx.snapshots.insert(row);
    }
    await tx.snapshots.addItems(key, sentItems(operations));
    return {
      kind: 'apply',
      part: { snapshotId: key.snapshotId, syncRunId: row.syncRunId, part: request.part, last: request.last, fingerprint },
    };
  });
}

/** A repeated part: its stored results, with the snapshot's state as it is now. */
function replayed(row: SnapshotRecord, response: string, part: number): BatchResponse {
  const data = JSON.parse(response) as BatchResponse;
  data.snapshot = { snapshot_id: row.snapshotId, part, status: row.status, deactivated: row.deactivated, reason: row.reason };
  return data;
}

/** The codes a part sends: every one counts as present, failed operations included (rule 3). */
function sentItems(operations: unknown[]): { kind: ItemKind; externalId: string }[] {
  const items: { kind: ItemKind; externalId: string }[] = [];
  for (const raw of operations) {
    if (raw === null || typeof raw !== 'object') continue;
    const { op, external_id: code } = raw as { op?: unknown; external_id?: unknown };
    // A code that breaks the pattern cannot name any item, so it cannot keep one either.
    if (typeof code !== 'string' || !EXTERNAL_ID_PATTERN.test(code)) continue;
    items.push({ kind: itemKindOf(op), externalId: code });
  }
  return items;
}

/**
 * Closes a part in one transaction: its results are stored for repetitions, and at the last part the
 * missing-items policy runs (spec: Full snapshot rules 1–2), so a crash never leaves half of it.
 */
export async function finishPart(env: EnvContext, integration: IntegrationRecord, part: OpenPart, results: BatchResultItem[]): Promise<BatchResponse> {
  return env.store.tx(async (tx) => {
    const key: SnapshotKey = { integrationId: integration.id, snapshotId: part.snapshotId };
    const summary = summarize(results);
    await tx.snapshots.finishPart(key, part.part, summary.failed);
    let snapshot: SnapshotView = { snapshot_id: part.snapshotId, part: part.part, status: 'open', deactivated: 0, reason: null };
    if (part.last) {
      const row = (await tx.snapshots.get(key, { lock: true }))!;
      const { deactivated, reason } = await applyPolicy(env, tx, integration, row);
      await tx.snapshots.close(key, 'completed', deactivated, reason);
      snapshot = { ...snapshot, status: 'completed', deactivated, reason };
    }
    const data: BatchResponse = { summary, results, sync_run_id: part.syncRunId, snapshot };
    await tx.snapshots.savePart(key, part.part, part.fingerprint, JSON.stringify(data));
    return data;
  });
}

/**
 * The integration's `missing_items_policy`, read now (the merchant may have changed it meanwhile).
 * Products go first, so that a category left without active products can go too; a category that
 * still has active products (sent ones, or the merchant's own) stays, and that is not an error.
 */
async function applyPolicy(env: EnvContext, tx: Tx, integration: IntegrationRecord, row: SnapshotRecord): Promise<{ deactivated: number; reason: string | null }> {
  const current = (await tx.integrations.byId(integration.id)) ?? integration;
  const sent = { category: new Set<string>(), product: new Set<string>() };
  for (const item of await tx.snapshots.items({ integrationId: row.integrationId, snapshotId: row.snapshotId })) {
    if (item.kind === 'category' || item.kind === 'any') sent.category.add(item.externalId);
    if (item.kind === 'product' || item.kind === 'any') sent.product.add(item.externalId);
  }
  const plan = planMissingItems({
    policy: current.settings.missing_items_policy,
    failed: row.failed,
    products: await tx.catalog.linkedProducts(integration.id),
    categories: await tx.catalog.linkedCategories(integration.id),
    sentProduct: (code) => sent.product.has(code),
    sentCategory: (code) => sent.category.has(code),
  });
  let deactivated = 0;
  for (const product of plan.products) {
    if ((await deactivateProduct(env, tx, current, product.externalId)).result === 'updated') deactivated += 1;
  }
  for (const category of plan.categories) {
    try {
      if ((await deactivateCategory(env, tx, current, category.externalId)).result === 'updated') deactivated += 1;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'category_not_empty') throw error;
    }
  }
  return { deactivated, reason: plan.reason };
}
