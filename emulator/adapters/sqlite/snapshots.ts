import type { Db } from './open.js';
import type { SnapshotKey, SnapshotRecord, SnapshotsRepository } from '../../catalog/repository.js';
import type { ItemKind, SnapshotStatus } from '../../catalog/snapshot.js';
import { prepareLazily } from './lazy-statement.js';

// Full catalog snapshots: their state, the codes each one sent and the stored results of each part.

interface SnapshotRow {
  integration_id: string;
  snapshot_id: string;
  sync_run_id: string;
  status: SnapshotStatus;
  last_part: number;
  failed: number;
  deactivated: number;
  reason: string | null;
  started_at: number;
}

const toRecord = (r: SnapshotRow): SnapshotRecord => ({
  integrationId: r.integration_id,
  snapshotId: r.snapshot_id,
  syncRunId: r.sync_run_id,
  status: r.status,
  lastPart: r.last_part,
  failed: r.failed,
  deactivated: r.deactivated,
  reason: r.reason,
  startedAt: r.started_at,
});

const keyOf = (k: SnapshotKey) => ({ integration_id: k.integrationId, snapshot_id: k.snapshotId });

export function sqliteSnapshots(db: Db): SnapshotsRepository {
  type Key = { integration_id: string; snapshot_id: string };
  const get = prepareLazily<Key, SnapshotRow>(db, 'SELECT * FROM snapshots WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id');
  const insert = prepareLazily(db,
    `INSERT INTO snapshots (integration_id, snapshot_id, sync_run_id, status, last_part, started_at)
     VALUES (@integration_id, @snapshot_id, @sync_run_id, @status, @last_part, @started_at)`,
  );
  const finishPart = prepareLazily(db,
    'UPDATE snapshots SET last_part = @part, failed = failed + @failed WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id',
  );
  const close = prepareLazily(db,
    `UPDATE snapshots SET status = @status, deactivated = @deactivated, reason = @reason
     WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id`,
  );
  const addItem = prepareLazily(db,
    'INSERT OR IGNORE INTO snapshot_items (integration_id, snapshot_id, kind, external_id) VALUES (@integration_id, @snapshot_id, @kind, @external_id)',
  );
  const items = prepareLazily<Key, { kind: ItemKind; externalId: string }>(db,
    'SELECT kind, external_id AS externalId FROM snapshot_items WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id',
  );
  const part = prepareLazily<Key & { part: number }, { fingerprint: string; response: string }>(db,
    'SELECT fingerprint, response FROM snapshot_parts WHERE integration_id = @integration_id AND snapshot_id = @snapshot_id AND part = @part',
  );
  const savePart = prepareLazily(db,
    `INSERT OR REPLACE INTO snapshot_parts (integration_id, snapshot_id, part, fingerprint, response)
     VALUES (@integration_id, @snapshot_id, @part, @fingerprint, @response)`,
  );
  return {
    async get(key) {
      const row = get.get(keyOf(key));
      return row ? toRecord(row) : undefined;
    },
    async insert(s) {
      insert.run({ ...keyOf(s), sync_run_id: s.syncRunId, status: s.status, last_part: s.lastPart, started_at: s.startedAt });
    },
    async finishPart(key, n, failed) {
      finishPart.run({ ...keyOf(key), part: n, failed });
    },
    async close(key, status, deactivated, reason) {
      close.run({ ...keyOf(key), status, deactivated, reason });
    },
    async addItems(key, list) {
      const k = keyOf(key);
      for (const item of list) addItem.run({ ...k, kind: item.kind, external_id: item.externalId });
    },
    async items(key) {
      return items.all(keyOf(key));
    },
    async part(key, n) {
      return part.get({ ...keyOf(key), part: n });
    },
    async savePart(key, n, fingerprint, response) {
      savePart.run({ ...keyOf(key), part: n, fingerprint, response });
    },
  };
}
