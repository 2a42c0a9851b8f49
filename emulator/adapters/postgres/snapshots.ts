import type { SnapshotRecord, SnapshotsRepository } from '../../catalog/repository.js';
import type { ItemKind } from '../../catalog/snapshot.js';
import { statement, tableIn, type Conn } from './conn.js';

// Full catalog snapshots: their state, the codes each one sent and the stored results of each part.

const SNAPSHOT = `integration_id AS "integrationId", snapshot_id AS "snapshotId", sync_run_id AS "syncRunId", status,
  last_part AS "lastPart", failed, deactivated, reason, started_at AS "startedAt"`;

export function snapshotsSql(schema: string) {
  const t = tableIn(schema);
  const key = 'integration_id = $1 AND snapshot_id = $2';
  return {
    get: statement(`SELECT ${SNAPSHOT} FROM ${t('snapshots')} WHERE ${key}`),
    // A second part of the same snapshot waits here until the first's transaction ends.
    lock: statement(`SELECT ${SNAPSHOT} FROM ${t('snapshots')} WHERE ${key} FOR UPDATE`),
    insert: statement(
      `INSERT INTO ${t('snapshots')} (integration_id, snapshot_id, sync_run_id, status, last_part, started_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    ),
    finishPart: statement(`UPDATE ${t('snapshots')} SET last_part = $3, failed = failed + $4 WHERE ${key}`),
    close: statement(`UPDATE ${t('snapshots')} SET status = $3, deactivated = $4, reason = $5 WHERE ${key}`),
    addItems: statement(
      `INSERT INTO ${t('snapshot_items')} (integration_id, snapshot_id, kind, external_id)
       SELECT $1, $2, kind, external_id FROM unnest($3::text[], $4::text[]) AS item(kind, external_id)
       ON CONFLICT DO NOTHING`,
    ),
    items: statement(`SELECT kind, external_id AS "externalId" FROM ${t('snapshot_items')} WHERE ${key} ORDER BY kind, external_id`),
    part: statement(`SELECT fingerprint, response FROM ${t('snapshot_parts')} WHERE ${key} AND part = $3`),
    savePart: statement(
      `INSERT INTO ${t('snapshot_parts')} (integration_id, snapshot_id, part, fingerprint, response) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (integration_id, snapshot_id, part) DO UPDATE SET fingerprint = excluded.fingerprint, response = excluded.response`,
    ),
  };
}

export function pgSnapshots(conn: Conn, s: ReturnType<typeof snapshotsSql>): SnapshotsRepository {
  return {
    get: async (k, options) => (await conn.rows<SnapshotRecord>(options?.lock ? s.lock : s.get, [k.integrationId, k.snapshotId]))[0],
    async insert(x) {
      await conn.run(s.insert, [x.integrationId, x.snapshotId, x.syncRunId, x.status, x.lastPart, x.startedAt]);
    },
    async finishPart(k, part, failed) {
      await conn.run(s.finishPart, [k.integrationId, k.snapshotId, part, failed]);
    },
    async close(k, status, deactivated, reason) {
      await conn.run(s.close, [k.integrationId, k.snapshotId, status, deactivated, reason]);
    },
    async addItems(k, list) {
      if (list.length === 0) return;
      await conn.run(s.addItems, [k.integrationId, k.snapshotId, list.map((i) => i.kind), list.map((i) => i.externalId)]);
    },
    items: (k) => conn.rows<{ kind: ItemKind; externalId: string }>(s.items, [k.integrationId, k.snapshotId]),
    part: async (k, part) => (await conn.rows<{ fingerprint: string; response: string }>(s.part, [k.integrationId, k.snapshotId, part]))[0],
    async savePart(k, part, fingerprint, response) {
      await conn.run(s.savePart, [k.integrationId, k.snapshotId, part, fingerprint, response]);
    },
  };
}
