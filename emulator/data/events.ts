import type { Db } from '../store/sqlite/open.js';
import { API_VERSION } from '../../src/contract/limits.js';
import { formatDate } from '../../src/contract/dates.js';

export interface EventRecord {
  seq: number;
  id: string;
  type: string;
  storeId: string;
  integrationId: string;
  createdAt: number;
  data: Record<string, unknown>;
}

export interface EventRow {
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
  type: r.type,
  storeId: r.store_id,
  integrationId: r.integration_id,
  createdAt: r.created_at,
  data: JSON.parse(r.data),
});

/** spec: Events — the envelope every consumer (feed, webhook) sees. */
export function eventEnvelope(e: EventRecord) {
  return {
    id: e.id,
    type: e.type,
    api_version: API_VERSION,
    created_at: formatDate(e.createdAt),
    store_id: e.storeId,
    integration_id: e.integrationId,
    data: e.data,
  };
}

/** A feed row: the stored `data` as its UTF-8 bytes (copied into the response, never decoded). */
export interface EventBytesRow extends Omit<EventRow, 'data'> {
  data: Buffer;
}

/**
 * The envelope's text up to its `data` value: `{"id":…,"integration_id":"…","data":`, for the feed
 * to write the stored `data` after it without parsing it (its hot path). Ids, version and date never
 * hold characters that JSON escapes; the type is quoted with JSON.stringify, the one free-form text.
 */
export function eventEnvelopeHead(r: Omit<EventRow, 'data'>): string {
  return `{"id":"${r.id}","type":${JSON.stringify(r.type)},"api_version":"${API_VERSION}","created_at":"${formatDate(r.created_at)}",` +
    `"store_id":"${r.store_id}","integration_id":"${r.integration_id}","data":`;
}

/** Called inside the transaction that writes the event: the outbox of the webhook dispatcher hooks here. */
export type EventListener = (event: EventRecord) => void;

export function createEventStatements(db: Db) {
  const insert = db.prepare<[string, string, string, string, number, string], { seq: number }>(
    'INSERT INTO events (id, type, store_id, integration_id, created_at, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq',
  );
  const after = db.prepare<[string, number, number], EventRow>(
    'SELECT * FROM events WHERE integration_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  const byId = db.prepare<[string], EventRow>('SELECT * FROM events WHERE id = ?');
  const bySeq = db.prepare<[number], EventRow>('SELECT * FROM events WHERE seq = ?');
  const oldestFor = db.prepare<[string], { seq: number }>('SELECT MIN(seq) AS seq FROM events WHERE integration_id = ?');
  const purge = db.prepare('DELETE FROM events WHERE created_at < ?');
  // The feed: events of one integration after a position, of the given types, not older than the cutoff.
  // `data` as a BLOB: better-sqlite3 hands its bytes over as a Buffer, with no UTF-8 decoding into a
  // JS string that the response would then encode again (the feed's largest cost).
  const feedPage = db.prepare<{ integration_id: string; after: number; cutoff: number; types: string; limit: number }, EventBytesRow>(
    `SELECT seq, id, type, store_id, integration_id, created_at, CAST(data AS BLOB) AS data FROM events WHERE integration_id = @integration_id AND seq > @after AND created_at >= @cutoff
       AND type IN (SELECT value FROM json_each(@types)) ORDER BY seq LIMIT @limit`,
  );
  const latestFor = db.prepare<[string, number], { seq: number | null }>(
    'SELECT MAX(seq) AS seq FROM events WHERE integration_id = ? AND created_at >= ?',
  );
  const maxSeq = db.prepare<[], { seq: number | null }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'");
  const listeners: EventListener[] = [];

  return {
    /** Writes an event; call inside the transaction of the change it reports. */
    insert(e: Omit<EventRecord, 'seq'>): EventRecord {
      const { seq } = insert.get(e.id, e.type, e.storeId, e.integrationId, e.createdAt, JSON.stringify(e.data))!;
      const record = { ...e, seq };
      for (const listener of listeners) listener(record);
      return record;
    },
    onInsert(listener: EventListener) {
      listeners.push(listener);
    },
    after: (integrationId: string, seq: number, limit: number) => after.all(integrationId, seq, limit).map(toRecord),
    byId: (id: string) => {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    bySeq: (seq: number) => {
      const row = bySeq.get(seq);
      return row ? toRecord(row) : undefined;
    },
    oldestSeq: (integrationId: string) => oldestFor.get(integrationId)?.seq ?? null,
    purgeBefore: (cutoff: number) => purge.run(cutoff).changes,
    /**
     * One page of the feed (spec: GET /events), in strict creation order. `data` stays the stored
     * JSON, as bytes: the feed copies it into the response without decoding or parsing it.
     */
    feedPage: (integrationId: string, after: number, cutoff: number, types: readonly string[], limit: number): EventBytesRow[] =>
      feedPage.all({ integration_id: integrationId, after, cutoff, types: JSON.stringify(types), limit }),
    /** The integration's newest event not older than `cutoff`, or null. */
    latestSeq: (integrationId: string, cutoff: number) => latestFor.get(integrationId, cutoff)?.seq ?? null,
    /** The highest position ever handed out in this database (0 when none). */
    maxSeq: () => maxSeq.get()?.seq ?? 0,
  };
}
export type EventStatements = ReturnType<typeof createEventStatements>;
