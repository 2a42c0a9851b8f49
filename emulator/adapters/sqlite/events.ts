import type { Db } from './open.js';
import type { EventType } from '../../../src/contract/events.js';
import type { EventBytes, EventRecord, EventsRepository } from '../../orders/repository.js';
import { prepareLazily } from './lazy-statement.js';

// The events table: the feed's positions are SQLite's AUTOINCREMENT `seq` (never reused, so a
// cursor never names another event than the one it was made from).

interface EventRow {
  seq: number;
  id: string;
  type: string;
  store_id: string;
  integration_id: string;
  created_at: number;
  data: string;
}

const toRecord = (r: EventRow): EventRecord => ({
  seq: r.seq,
  id: r.id,
  type: r.type as EventType,
  storeId: r.store_id,
  integrationId: r.integration_id,
  createdAt: r.created_at,
  data: JSON.parse(r.data),
});

export function sqliteEvents(db: Db): EventsRepository {
  const insert = prepareLazily<[string, string, string, string, number, string], { seq: number }>(db,
    'INSERT INTO events (id, type, store_id, integration_id, created_at, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq',
  );
  const byId = prepareLazily<[string], EventRow>(db, 'SELECT * FROM events WHERE id = ?');
  const bySeq = prepareLazily<[number], EventRow>(db, 'SELECT * FROM events WHERE seq = ?');
  const purge = prepareLazily(db, 'DELETE FROM events WHERE created_at < ?');
  // The feed: events of one integration after a position, of the given types, not older than the cutoff.
  // `data` as a BLOB: better-sqlite3 hands its bytes over as a Buffer, with no UTF-8 decoding into a
  // JS string that the response would then encode again (the feed's largest cost). The columns are
  // named as the record's fields: the rows are the records, with no copy (the feed's hot path).
  const feedPage = prepareLazily<{ integration_id: string; after: number; cutoff: number; types: string; limit: number }, EventBytes>(db,
    `SELECT seq, id, type, store_id AS storeId, integration_id AS integrationId, created_at AS createdAt, CAST(data AS BLOB) AS data
     FROM events WHERE integration_id = @integration_id AND seq > @after AND created_at >= @cutoff
       AND type IN (SELECT value FROM json_each(@types)) ORDER BY seq LIMIT @limit`,
  );
  const latestFor = prepareLazily<[string, number], { seq: number | null }>(db, 'SELECT MAX(seq) AS seq FROM events WHERE integration_id = ? AND created_at >= ?');
  const maxSeq = prepareLazily<[], { seq: number | null }>(db, "SELECT seq FROM sqlite_sequence WHERE name = 'events'");
  return {
    async insert(e) {
      const { seq } = insert.get(e.id, e.type, e.storeId, e.integrationId, e.createdAt, JSON.stringify(e.data))!;
      return { ...e, seq };
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async bySeq(seq) {
      const row = bySeq.get(seq);
      return row ? toRecord(row) : undefined;
    },
    async feedPage(a) {
      return feedPage.all({ integration_id: a.integrationId, after: a.after, cutoff: a.cutoff, types: JSON.stringify(a.types), limit: a.limit });
    },
    async latestSeq(integrationId, cutoff) {
      return latestFor.get(integrationId, cutoff)?.seq ?? null;
    },
    async maxSeq() {
      return maxSeq.get()?.seq ?? 0;
    },
    async purgeBefore(cutoff) {
      return purge.run(cutoff).changes;
    },
  };
}
