import type { Environment } from '../../../src/contract/store.js';
import { ENVIRONMENTS } from '../../../src/contract/store.js';
import { LIMITS } from '../../../src/contract/limits.js';
import type { Claim, IdempotencyClaims, StoredResponse, WorkClaim } from '../../store/coordination.js';
import { QueryConn, statement, tableIn, type Conn, type Queryable } from './conn.js';
import type { LeaseKeeper } from './leases.js';
import type { SchemaNames } from './schema.js';

/**
 * spec: Idempotency rules across processes. The key's row is the claim: one INSERT … ON CONFLICT
 * takes it when it is new, past retention, or a `processing` claim whose lease ran out (its process
 * died); otherwise the row as it stands answers (in progress, conflict, replay). The row lives in
 * the environment's schema, as on SQLite, so bundles carry the finished answers.
 */
function sqlOf(schema: string) {
  const t = tableIn(schema);
  return {
    take: statement(
      `INSERT INTO ${t('idempotency_keys')} AS k (integration_id, key, fingerprint, state, created_at, owner, lease_until)
       VALUES ($1, $2, $3, 'processing', $4, $5, $6)
       ON CONFLICT (integration_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'processing', status_code = NULL,
         response = NULL, created_at = excluded.created_at, owner = excluded.owner, lease_until = excluded.lease_until
       WHERE k.created_at <= $7
         OR (k.state = 'processing' AND (k.lease_until IS NULL OR k.lease_until < $8))
         OR (k.state <> 'processing' AND k.response IS NULL)
       RETURNING 1`,
    ),
    get: statement(`SELECT fingerprint, state, response FROM ${t('idempotency_keys')} WHERE integration_id = $1 AND key = $2`),
    finish: statement(
      `UPDATE ${t('idempotency_keys')} SET state = 'done', status_code = $3, response = $4, owner = NULL, lease_until = NULL
       WHERE integration_id = $1 AND key = $2 AND owner = $5`,
    ),
    drop: statement(`DELETE FROM ${t('idempotency_keys')} WHERE integration_id = $1 AND key = $2 AND owner = $3`),
  };
}

interface Row {
  fingerprint: string;
  state: 'processing' | 'done';
  response: string | null;
}

const ignore = () => undefined;

export function pgIdempotency(conn: Conn, names: SchemaNames, leases: LeaseKeeper): IdempotencyClaims {
  const statements = Object.fromEntries(ENVIRONMENTS.map((env) => [env, sqlOf(names.env[env])])) as Record<Environment, ReturnType<typeof sqlOf>>;
  const owner = leases.owner;

  /** The claim, its first INSERT sent on `first` (else on the pool); `refused` as soon as that one did not take it. */
  async function claim(
    env: Environment, integrationId: string, key: string, fingerprint: string, now: number, first: Conn = conn, refused: () => void = ignore,
  ): Promise<Claim> {
    const s = statements[env];
    // A row that vanishes between the two reads (released) is claimed again; a few times at most.
    for (let i = 0; i < 5; i++) {
      const values = [integrationId, key, fingerprint, now, owner, leases.until(), now - LIMITS.idempotencyRetentionMs, Date.now()];
      const taken = i === 0 ? await first.rows(s.take, values).then((rows) => (rows.length === 0 && refused(), rows)) : await conn.rows(s.take, values);
      if (taken.length > 0) {
        leases.taken();
        return { kind: 'fresh' };
      }
      const [row] = await conn.rows<Row>(s.get, [integrationId, key]);
      if (!row) continue;
      if (row.state === 'processing') return { kind: 'in_progress' };
      if (row.fingerprint !== fingerprint) return { kind: 'conflict' };
      if (row.response !== null) return { kind: 'replay', response: JSON.parse(row.response) as StoredResponse };
    }
    return { kind: 'in_progress' };
  }

  return {
    claim: (env, integrationId, key, fingerprint, now) => claim(env, integrationId, key, fingerprint, now),
    withWork(env, integrationId, key, fingerprint, now): WorkClaim {
      let taking: Promise<Claim> | undefined;
      let storing: StoredResponse | undefined;
      const work: WorkClaim = {
        taken: undefined,
        stored: undefined,
        // The finish as a statement of the transaction, sent with its COMMIT (env-store.ts).
        answerWrite(out) {
          storing = work.taken?.kind === 'fresh' ? work.answerOf?.(out) : undefined;
          if (!storing || !Number.isInteger(storing.status)) return (storing = undefined);
          return { statement: statements[env].finish, values: [integrationId, key, storing.status, JSON.stringify(storing), owner] };
        },
        committed() {
          if (!storing) return;
          (work as { stored: StoredResponse | undefined }).stored = storing;
          leases.given();
        },
        takeOn(db, refused) {
          return (taking ??= keep(claim(env, integrationId, key, fingerprint, now, new QueryConn(db as Queryable, ignore), refused)));
        },
        result() {
          return (taking ??= keep(claim(env, integrationId, key, fingerprint, now)));
        },
      };
      // What was taken is kept for the route; a claim that failed (its connection was gone) may be sent again.
      const keep = (promise: Promise<Claim>) => {
        promise.then(
          (taken) => void ((work as { taken: Claim | undefined }).taken = taken),
          () => void (taking === promise && (taking = undefined)),
        );
        return promise;
      };
      return work;
    },
    finish(env, integrationId, key, response) {
      const write = () => conn.run(statements[env].finish, [integrationId, key, response.status, JSON.stringify(response), owner]);
      return leases.settle(`key ${env} ${integrationId} ${key}`, write);
    },
    release(env, integrationId, key) {
      return leases.settle(`key ${env} ${integrationId} ${key}`, () => conn.run(statements[env].drop, [integrationId, key, owner]));
    },
  };
}
