import type { MerchantClient } from '../../../../client/index.js';
import type { BatchResponse } from '../../../../contract/catalog.js';
import { ApiError } from '../../../../client/index.js';
import { ExitError } from '../../../errors.js';
import { plural } from '../../../output.js';
import { splitParts, partsDigest, wireOp } from './parts.js';
import type { PlannedOp, SyncPlan } from './plan.js';
import type { Progress } from './progress.js';
import { clearState, loadState, newState, partKey, saveState, stateFile, type SnapshotState } from './resume.js';
import { sendBatch } from './send.js';
import { randomBytes } from 'node:crypto';

/** A failed operation, located in its file. */
export interface OpError {
  file: string;
  line: number | null;
  item: string;
  op: string;
  external_id: string;
  code: string;
  message: string;
  details?: unknown;
}

export type Counts = Record<'created' | 'updated' | 'unchanged' | 'ignored_stale' | 'failed', number>;

/** What this run sent: a resumed snapshot's earlier parts were sent by an earlier run. */
export interface ThisRun {
  /** The first and last part (or batch) this run sent, 1-based; null when it sent none. */
  fromPart: number | null;
  toPart: number | null;
  operations: number;
  counts: Counts;
}

export interface RunResult {
  /** Parts (batches) sent by this run. */
  batches: number;
  /** Operations of the whole sync (of the whole snapshot, for a resumed one). */
  operations: number;
  partsTotal: number;
  /** Results of the whole sync (of the whole snapshot, earlier runs included, for a resumed one). */
  counts: Counts;
  errors: OpError[];
  syncRunIds: string[];
  snapshot: null | { snapshot_id: string; status: string; deactivated: number; reason: string | null; resumed_from_part: number | null };
  thisRun: ThisRun;
}

const emptyCounts = (): Counts => ({ created: 0, updated: 0, unchanged: 0, ignored_stale: 0, failed: 0 });

/**
 * A sync that stopped before its end, by a signal or a failure: how far it got (`result`), what to
 * do next (`resume`), and why (`cause`, thrown again by the command once it has said where it stood).
 */
export class SyncStopped extends Error {
  constructor(
    readonly result: RunResult,
    readonly resume: { partsDone: number; partsTotal: number; snapshotId: string | null },
    readonly cause: unknown,
  ) {
    super('the sync stopped before its end');
    this.name = 'SyncStopped';
  }
}

export interface RunOptions {
  /** Aborted by Ctrl+C: the part in flight is let finish, then the run stops (waits end at once). */
  signal?: AbortSignal;
}

function emptyResult(operations: number, partsTotal: number): RunResult {
  return {
    batches: 0, operations, partsTotal, counts: emptyCounts(), errors: [], syncRunIds: [], snapshot: null,
    thisRun: { fromPart: null, toPart: null, operations: 0, counts: emptyCounts() },
  };
}

/** Adds one acknowledged part to this run's share. */
function ranPart(run: ThisRun, part: number, ops: number, counts: Counts): void {
  run.fromPart ??= part;
  run.toPart = part;
  run.operations += ops;
  for (const k of Object.keys(counts) as (keyof Counts)[]) run.counts[k] += counts[k];
}

function record(result: RunResult, ops: PlannedOp[], data: BatchResponse): void {
  for (const r of data.results) {
    const op = ops[r.index];
    if (r.result === 'error') {
      result.counts.failed++;
      result.errors.push({
        file: op?.where.file ?? '', line: op?.where.line ?? null, item: op?.where.label ?? `operation ${r.index}`, op: op?.op ?? '',
        external_id: op?.external_id ?? String(r.external_id), code: r.error?.code ?? 'error', message: r.error?.message ?? '',
        ...(r.error?.details !== undefined ? { details: r.error.details } : {}),
      });
    } else result.counts[r.result]++;
  }
  if (!result.syncRunIds.includes(data.sync_run_id)) result.syncRunIds.push(data.sync_run_id);
}

/** Sends only what changed, in batches of at most 500 operations, one at a time. */
export async function runIncremental(client: MerchantClient, plan: SyncPlan, progress: Progress, options: RunOptions = {}): Promise<RunResult> {
  const parts = splitParts(plan.ops);
  const result = emptyResult(plan.ops.length, parts.length);
  const run = randomBytes(8).toString('hex');
  let done = 0;
  try {
    for (const [i, ops] of parts.entries()) {
      if (options.signal?.aborted) throw options.signal.reason;
      progress.sending(i + 1, parts.length, done, plan.ops.length);
      const started = Date.now();
      const sent = await sendBatch(client, { operations: ops.map(wireOp) }, `mk-sync-${run}-b${i + 1}`, progress, options.signal);
      const before = { ...result.counts };
      record(result, ops, sent.data);
      result.batches++;
      ranPart(result.thisRun, i + 1, ops.length, diff(result.counts, before));
      done += ops.length;
      progress.sent(i + 1, parts.length, ops.length, sent.data.summary.failed, Date.now() - started, sent.replayed);
    }
  } catch (error) {
    throw new SyncStopped(result, { partsDone: result.batches, partsTotal: parts.length, snapshotId: null }, error);
  }
  progress.sending(parts.length, parts.length, done, plan.ops.length);
  return result;
}

const diff = (after: Counts, before: Counts): Counts =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k as keyof Counts]])) as Counts;

export interface SnapshotOptions {
  stateDir: string;
  baseUrl: string;
  integrationId: string;
}

/**
 * Sends every item as one full snapshot in parts of at most 500 operations, with one `snapshot_id`.
 * Progress is saved after each acknowledged part, so a rerun after an interruption continues there
 * (see resume.ts); a part the server already applied answers as a replay and is never applied twice.
 */
export async function runSnapshot(client: MerchantClient, plan: SyncPlan, progress: Progress, options: SnapshotOptions & RunOptions): Promise<RunResult> {
  const parts = splitParts(plan.ops);
  const digest = partsDigest(parts);
  const path = stateFile(options.stateDir, options.baseUrl, options.integrationId, digest);
  let state = loadState(path, digest, parts.length);
  const resumedFrom = state && state.parts_done > 0 ? state.parts_done + 1 : null;
  if (state && resumedFrom) progress.note(`resuming snapshot ${state.snapshot_id} at part ${resumedFrom}/${parts.length} (earlier run interrupted)`);
  if (!state || !resumedFrom) {
    state = newState(digest, parts.length);
    progress.note(`snapshot ${state.snapshot_id}: ${plural(parts.length, 'part')}, ${plural(plan.ops.length, 'operation')}`);
  }
  saveState(path, state);
  const ctx: PartsContext = { ...options, path, digest, state, resumedFrom, result: emptyResult(plan.ops.length, parts.length) };
  try {
    await sendParts(client, parts, plan, progress, ctx);
  } catch (error) {
    throw new SyncStopped(ctx.result, { partsDone: ctx.state.parts_done, partsTotal: parts.length, snapshotId: ctx.state.snapshot_id }, error);
  }
  progress.sending(parts.length, parts.length, plan.ops.length, plan.ops.length);
  clearState(path);
  const { result } = ctx;
  result.counts = { ...emptyCounts(), ...ctx.state.counts } as Counts;
  result.errors = ctx.state.errors as OpError[];
  result.syncRunIds = ctx.state.sync_run_id ? [ctx.state.sync_run_id] : [];
  return result;
}

interface PartsContext extends RunOptions {
  path: string;
  digest: string;
  /** The snapshot's state; a restart (the snapshot expired) replaces it. */
  state: SnapshotState;
  resumedFrom: number | null;
  result: RunResult;
}

/** The loop of runSnapshot: each part in order, continuing where the server says after a refusal. */
async function sendParts(client: MerchantClient, parts: PlannedOp[][], plan: SyncPlan, progress: Progress, ctx: PartsContext): Promise<void> {
  const { path, digest, resumedFrom, result } = ctx;
  let state = ctx.state;
  let restarts = 0;
  let jumps = 0;
  // After a crash between the last part and the clean-up, the last part is sent again: its replay
  // carries the snapshot's final state.
  for (let part = Math.min(state.parts_done + 1, parts.length); part <= parts.length; ) {
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    const ops = parts[part - 1];
    progress.sending(part, parts.length, offset(parts, part - 1), plan.ops.length);
    const started = Date.now();
    const body = { operations: ops.map(wireOp), full_snapshot: true, snapshot_id: state.snapshot_id, snapshot_part: part, snapshot_last: part === parts.length };
    let sent;
    try {
      sent = await sendBatch(client, body, partKey(state.snapshot_id, part, state.refused?.[part]), progress, ctx.signal);
    } catch (error) {
      const next = recover(error, state, part, restarts);
      // Each jump goes back to a part the server has not applied: more jumps than parts is a loop.
      if (next === null || (typeof next === 'number' && ++jumps > parts.length)) throw error;
      if (next === 'restart') {
        restarts++;
        progress.note(`snapshot ${state.snapshot_id} is closed (it expired); starting a new snapshot`);
        state = ctx.state = newState(digest, parts.length);
      } else {
        progress.note(`the server expects part ${next} of snapshot ${state.snapshot_id}; continuing there`);
        state.refused = { ...state.refused, [part]: (state.refused?.[part] ?? 0) + 1 };
        state.parts_done = next - 1;
      }
      saveState(path, state);
      part = state.parts_done + 1;
      continue;
    }
    result.batches++;
    const partResult: RunResult = { ...result, counts: emptyCounts(), errors: [], syncRunIds: [] };
    record(partResult, ops, sent.data);
    addInto(state, partResult);
    ranPart(result.thisRun, part, ops.length, partResult.counts);
    state.parts_done = part;
    state.sync_run_id = sent.data.sync_run_id;
    if (sent.data.snapshot) {
      result.snapshot = { ...sent.data.snapshot, resumed_from_part: resumedFrom };
    }
    saveState(path, state);
    progress.sent(part, parts.length, ops.length, sent.data.summary.failed, Date.now() - started, sent.replayed);
    part++;
  }
}

const offset = (parts: PlannedOp[][], n: number) => parts.slice(0, n).reduce((sum, p) => sum + p.length, 0);

function addInto(state: SnapshotState, part: RunResult): void {
  for (const [k, v] of Object.entries(part.counts)) state.counts[k] = (state.counts[k] ?? 0) + v;
  state.errors.push(...part.errors);
}

/**
 * The part to continue from after a snapshot error, or null to fail: 409 `snapshot_out_of_order`
 * gives `details.expected_part`; 409 `snapshot_closed` (the snapshot expired, 2 hours) starts a new
 * snapshot from part 1 (`restart`), once.
 */
function recover(error: unknown, state: SnapshotState, part: number, restarts: number): number | 'restart' | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  if (error.code === 'snapshot_closed') return restarts === 0 ? 'restart' : null;
  if (error.code !== 'snapshot_out_of_order') return null;
  const expected = (error.details as { expected_part?: unknown } | undefined)?.expected_part;
  if (typeof expected !== 'number' || expected === part || expected < 1 || expected > state.parts_total) return null;
  return expected;
}

/** The sync's exit: 1 when an operation failed or the snapshot did not complete. */
export function failureOf(result: RunResult): ExitError | null {
  const { failed } = result.counts;
  if (failed > 0) {
    return new ExitError(`error: ${plural(failed, 'operation')} failed (listed above)`, 1, { code: 'operations_failed', details: result.errors });
  }
  if (result.snapshot && result.snapshot.status !== 'completed') {
    return new ExitError(`error: snapshot ${result.snapshot.snapshot_id} ended ${result.snapshot.status}`, 1, { code: 'snapshot_incomplete', details: result.snapshot });
  }
  return null;
}
