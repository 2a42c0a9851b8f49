import type { Db } from '../db/open.js';
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
  };
}
export type EventStatements = ReturnType<typeof createEventStatements>;
