import type { Db } from '../store/sqlite/open.js';

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface Row {
  fingerprint: string;
  state: 'processing' | 'done';
  status_code: number | null;
  response: string | null;
  created_at: number;
}

export function createIdempotencyStatements(db: Db) {
  const get = db.prepare<[string, string], Row>(
    'SELECT fingerprint, state, status_code, response, created_at FROM idempotency_keys WHERE integration_id = ? AND key = ?',
  );
  const begin = db.prepare(
    `INSERT INTO idempotency_keys (integration_id, key, fingerprint, state, created_at)
     VALUES (?, ?, ?, 'processing', ?)
     ON CONFLICT (integration_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'processing',
       status_code = NULL, response = NULL, created_at = excluded.created_at`,
  );
  const finish = db.prepare(
    "UPDATE idempotency_keys SET state = 'done', status_code = ?, response = ? WHERE integration_id = ? AND key = ?",
  );
  const drop = db.prepare('DELETE FROM idempotency_keys WHERE integration_id = ? AND key = ?');
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');

  return {
    get(integrationId: string, key: string) {
      const row = get.get(integrationId, key);
      if (!row) return undefined;
      return {
        fingerprint: row.fingerprint,
        state: row.state,
        createdAt: row.created_at,
        response: row.response ? (JSON.parse(row.response) as StoredResponse) : undefined,
      };
    },
    begin: (integrationId: string, key: string, fingerprint: string, now: number) => begin.run(integrationId, key, fingerprint, now),
    finish: (integrationId: string, key: string, response: StoredResponse) =>
      finish.run(response.status, JSON.stringify(response), integrationId, key),
    drop: (integrationId: string, key: string) => drop.run(integrationId, key),
    purgeBefore: (cutoff: number) => purge.run(cutoff).changes,
  };
}
export type IdempotencyStatements = ReturnType<typeof createIdempotencyStatements>;
