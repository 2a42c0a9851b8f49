import type { AccessRequestRecord, AccessRequestsRepository } from '../../access/repository.js';
import { statement, tableIn, type Conn } from './conn.js';
import { LOCK_CLASS } from './migrate.js';

// The access requests' table of one environment. The cap on pending requests holds for every process
// of the sandbox: the count and the write run under a transaction-scoped advisory lock of the schema.

const RECORD = `id, status, company, contact_email AS "contactEmail", system, claim_sha256 AS "claimSha256", seal_key AS "sealKey", reason,
  store_id AS "storeId", integration_id AS "integrationId", sealed, created_at AS "createdAt", decided_at AS "decidedAt", handed_over_at AS "claimedAt"`;

export function accessRequestsSql(schema: string) {
  const t = tableIn(schema);
  return {
    lock: statement(`SELECT pg_advisory_xact_lock(${LOCK_CLASS.accessRequests}, hashtext($1))`),
    insert: statement(
      `INSERT INTO ${t('access_requests')} (id, status, company, contact_email, system, claim_sha256, seal_key, created_at)
       SELECT $1, 'pending', $2, $3, $4, $5, $6, $7
       WHERE (SELECT count(*) FROM ${t('access_requests')} WHERE status = 'pending') < $8`,
    ),
    byId: statement(`SELECT ${RECORD} FROM ${t('access_requests')} WHERE id = $1`),
    list: statement(`SELECT ${RECORD} FROM ${t('access_requests')} WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id DESC LIMIT $2`),
    approve: statement(
      `UPDATE ${t('access_requests')} SET status = 'approved', store_id = $2, integration_id = $3, sealed = $4, decided_at = $5
       WHERE id = $1 AND status = 'pending'`,
    ),
    deny: statement(`UPDATE ${t('access_requests')} SET status = 'denied', reason = $2, decided_at = $3 WHERE id = $1 AND status = 'pending'`),
    // The row lock orders two takers; the second finds the hand-over gone (the WHERE is checked again
    // on the row as the first left it) and takes nothing.
    take: statement(
      `WITH taken AS (SELECT id, sealed FROM ${t('access_requests')} WHERE id = $1 AND sealed IS NOT NULL FOR UPDATE)
       UPDATE ${t('access_requests')} a SET sealed = NULL, handed_over_at = $2 FROM taken WHERE a.id = taken.id RETURNING taken.sealed AS sealed`,
    ),
  };
}

export function pgAccessRequests(conn: Conn, s: ReturnType<typeof accessRequestsSql>, schema: string): AccessRequestsRepository {
  return {
    async insertPending(r, cap, now) {
      await conn.rows(s.lock, [schema]);
      return (await conn.run(s.insert, [r.id, r.company, r.contactEmail, r.system, r.claimSha256, r.sealKey, now, cap])) === 1;
    },
    byId: async (id) => (await conn.rows<AccessRequestRecord>(s.byId, [id]))[0],
    list: async (status, limit) => conn.rows<AccessRequestRecord>(s.list, [status, limit]),
    approve: async (id, a, now) => (await conn.run(s.approve, [id, a.storeId, a.integrationId, a.sealed, now])) === 1,
    deny: async (id, reason, now) => (await conn.run(s.deny, [id, reason, now])) === 1,
    takeSealed: async (id, now) => (await conn.rows<{ sealed: Buffer }>(s.take, [id, now]))[0]?.sealed ?? null,
  };
}
