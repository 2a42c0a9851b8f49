import type { Environment } from '../../../src/contract/store.js';
import { LIMITS } from '../../../src/contract/limits.js';
import type { Claim, IdempotencyClaims, StoredResponse } from '../../store/coordination.js';
import type { Db } from './open.js';
import type { Mutex } from './mutex.js';
import { prepareLazily } from './lazy-statement.js';

interface Row {
  fingerprint: string;
  state: 'processing' | 'done';
  response: string | null;
  created_at: number;
}

/**
 * spec: Idempotency rules, on the embedded database: one table per environment. A claim is the
 * `processing` row; one process owns the database, so a claim left by a crash is cleared at the
 * next start (`releaseInterrupted`). The table is on the environment's connection: its writes wait
 * while a transaction of the environment is open (`mutexes`), or they would join it and go with
 * its rollback (a finished answer lost, a running request's claim dropped).
 */
export function sqliteIdempotency(
  dbs: Record<Environment, Db>, mutexes: Record<Environment, Mutex>,
): IdempotencyClaims & { releaseInterrupted(): void } {
  const prepare = (db: Db) => ({
    get: prepareLazily<[string, string], Row>(db, 'SELECT fingerprint, state, response, created_at FROM idempotency_keys WHERE integration_id = ? AND key = ?'),
    begin: prepareLazily<[string, string, string, number]>(db,
          `INSERT INTO idempotency_keys (integration_id, key, fingerprint, state, created_at)
       VALUES (?, ?, ?, 'processing', ?)
       ON CONFLICT (integration_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'processing',
         status_code = NULL, response = NULL, created_at = excluded.created_at`,
    ),
    finish: prepareLazily<[number, string, string, string]>(db, "UPDATE idempotency_keys SET state = 'done', status_code = ?, response = ? WHERE integration_id = ? AND key = ?"),
    drop: prepareLazily<[string, string]>(db, 'DELETE FROM idempotency_keys WHERE integration_id = ? AND key = ?'),
    interrupted: prepareLazily<[]>(db, "DELETE FROM idempotency_keys WHERE state = 'processing'"),
  });
  const statements = { live: prepare(dbs.live), test: prepare(dbs.test) };
  /** Runs `fn` outside any transaction of the environment (at once in the usual case: none open). */
  const outsideTx = <T>(env: Environment, fn: () => T): T | Promise<T> => (mutexes[env].locked ? mutexes[env].whenFree(fn) : fn());
  return {
    claim: async (env, integrationId, key, fingerprint, now) => outsideTx(env, (): Claim => {
      const s = statements[env];
      const existing = s.get.get(integrationId, key);
      if (existing && existing.created_at > now - LIMITS.idempotencyRetentionMs) {
        if (existing.state === 'processing') return { kind: 'in_progress' };
        if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
        if (existing.response) return { kind: 'replay', response: JSON.parse(existing.response) as StoredResponse };
      }
      s.begin.run(integrationId, key, fingerprint, now);
      return { kind: 'fresh' };
    }),
    finish: async (env, integrationId, key, response) => outsideTx(env, () => {
      statements[env].finish.run(response.status, JSON.stringify(response), integrationId, key);
    }),
    release: async (env, integrationId, key) => outsideTx(env, () => {
      statements[env].drop.run(integrationId, key);
    }),
    releaseInterrupted() {
      // A request cut off by a crash never finished: its key may be used again (spec: Idempotency 4).
      for (const s of Object.values(statements)) s.interrupted.run();
    },
  };
}
