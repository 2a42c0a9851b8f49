import type Database from 'better-sqlite3';
import type { Db } from '../store/sqlite/open.js';

export interface SnapshotRow {
  integration_id: string;
  snapshot_id: string;
  sync_run_id: string;
  status: 'open' | 'completed' | 'expired';
  /** The last part applied to the end (0 while part 1 has not finished). */
  last_part: number;
  /** Operations that failed over all parts so far. */
  failed: number;
  deactivated: number;
  reason: string | null;
  started_at: number;
}

export interface SnapshotPartRow {
  fingerprint: string;
  /** The part's batch response `data`, as JSON. */
  response: string;
}

export interface SnapshotItem {
  integration_id: string;
  snapshot_id: string;
  kind: string;
  external_id: string;
}

interface LinkedRow {
  id: string;
  external_id: string;
  active: number;
}

type Key = { integration_id: string; snapshot_id: string };

/** Full catalog snapshots: their state, the codes each one sent and the stored results of each part. */
export function createSnapshotStatements(db: Db): SnapshotStatements {
  return {
    get: db.prepare<Key, SnapshotRow>('SELECT * FROM snapshots WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id'),
    insert: db.prepare<Omit<SnapshotRow, 'deactivated' | 'reason' | 'failed'>>(
      `INSERT INTO snapshots (integration_id, snapshot_id, sync_run_id, status, last_part, started_at)
       VALUES (@integration_id, @snapshot_id, @sync_run_id, @status, @last_part, @started_at)`,
    ),
    /** Records one finished part: it is now the last applied and its failures add up. */
    finishPart: db.prepare<Key & { part: number; failed: number }>(
      `UPDATE snapshots SET last_part = @part, failed = failed + @failed
       WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id`,
    ),
    close: db.prepare<Key & Pick<SnapshotRow, 'status' | 'deactivated' | 'reason'>>(
      `UPDATE snapshots SET status = @status, deactivated = @deactivated, reason = @reason
       WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id`,
    ),
    addItem: db.prepare<SnapshotItem>(
      `INSERT OR IGNORE INTO snapshot_items (integration_id, snapshot_id, kind, external_id)
       VALUES (@integration_id, @snapshot_id, @kind, @external_id)`,
    ),
    items: db.prepare<Key, Pick<SnapshotItem, 'kind' | 'external_id'>>(
      'SELECT kind, external_id FROM snapshot_items WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id',
    ),
    part: db.prepare<Key & { part: number }, SnapshotPartRow>(
      `SELECT fingerprint, response FROM snapshot_parts
       WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id AND part = @part`,
    ),
    insertPart: db.prepare<Key & { part: number } & SnapshotPartRow>(
      `INSERT OR REPLACE INTO snapshot_parts (integration_id, snapshot_id, part, fingerprint, response)
       VALUES (@integration_id, @snapshot_id, @part, @fingerprint, @response)`,
    ),
    // What the missing-items policy looks at: the integration's linked items, active or not.
    linkedProducts: db.prepare<[string], LinkedRow>(
      'SELECT id, external_id, active FROM products WHERE integration_id = ? AND external_id IS NOT NULL ORDER BY id',
    ),
    linkedCategories: db.prepare<[string], LinkedRow>(
      'SELECT id, external_id, active FROM categories WHERE integration_id = ? AND external_id IS NOT NULL ORDER BY id',
    ),
  };
}
/**
 * Written out (not `ReturnType`) so that the declaration emit of `npm run build` can name them:
 * better-sqlite3's own statement type lives in a namespace its types do not export.
 */
export interface SnapshotStatements {
  get: Database.Statement<[Key], SnapshotRow>;
  insert: Database.Statement<[Omit<SnapshotRow, "deactivated" | "reason" | "failed">], unknown>;
  finishPart: Database.Statement<[Key & { part: number; failed: number; }], unknown>;
  close: Database.Statement<[Key & Pick<SnapshotRow, "deactivated" | "reason" | "status">], unknown>;
  addItem: Database.Statement<[SnapshotItem], unknown>;
  items: Database.Statement<[Key], Pick<SnapshotItem, "kind" | "external_id">>;
  part: Database.Statement<[Key & { part: number; }], SnapshotPartRow>;
  insertPart: Database.Statement<[Key & { part: number; } & SnapshotPartRow], unknown>;
  linkedProducts: Database.Statement<[string], LinkedRow>;
  linkedCategories: Database.Statement<[string], LinkedRow>;
}
