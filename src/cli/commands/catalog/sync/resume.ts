import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../../files/atomic.js';

/**
 * The resumable state of a full snapshot, kept in the profile's state folder while it is sent:
 * which snapshot, how many parts the server has acknowledged, and the results so far. A rerun of the
 * same command (same target, same file content) continues after the last acknowledged part with the
 * same `snapshot_id` and the same Idempotency-Keys; the file is removed when the snapshot ends.
 */
export interface SnapshotState {
  version: 1;
  snapshot_id: string;
  digest: string;
  parts_total: number;
  parts_done: number;
  started_at: string;
  /** Per-result counts of the acknowledged parts. */
  counts: Record<string, number>;
  /** Failed operations of the acknowledged parts, as printed. */
  errors: unknown[];
  sync_run_id: string | null;
  /**
   * How many times the server refused each part as out of order. The refusal is stored under the
   * part's Idempotency-Key and would be replayed (spec: Idempotency rules), so a refused part is
   * sent again under a new key; the snapshot's own rules still never apply a part twice.
   */
  refused?: Record<number, number>;
}

/** The state file of one (target, integration, file content): other runs never share it. */
export function stateFile(dir: string, baseUrl: string, integrationId: string, digest: string): string {
  const key = createHash('sha256').update(`${baseUrl}\n${integrationId}\n${digest}`).digest('hex').slice(0, 32);
  return join(dir, `catalog-snapshot-${key}.json`);
}

export function loadState(path: string, digest: string, partsTotal: number): SnapshotState | null {
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as SnapshotState;
    const usable = state.version === 1 && state.digest === digest && state.parts_total === partsTotal && typeof state.snapshot_id === 'string';
    return usable ? state : null;
  } catch {
    return null;
  }
}

export function newState(digest: string, partsTotal: number, now = new Date()): SnapshotState {
  // spec: snapshot_id — the digest ties it to the content, the random part to this attempt.
  const snapshotId = `mk-${digest.slice(0, 12)}-${randomBytes(5).toString('hex')}`;
  return { version: 1, snapshot_id: snapshotId, digest, parts_total: partsTotal, parts_done: 0, started_at: now.toISOString(), counts: {}, errors: [], sync_run_id: null };
}

export function saveState(path: string, state: SnapshotState): void {
  writeFileAtomic(path, `${JSON.stringify(state)}\n`);
}

export function clearState(path: string): void {
  rmSync(path, { force: true });
}

/** The Idempotency-Key of a snapshot part: the same on every retry and every rerun until the server refuses the part. */
export const partKey = (snapshotId: string, part: number, refusals = 0) => `${snapshotId}.p${part}${refusals ? `.r${refusals}` : ''}`;
