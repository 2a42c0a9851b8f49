import type { CertificateLedger, CertificateRecord, SigningKeyRecord } from '../../certificates/repository.js';
import { statement, tableIn, type Conn } from './conn.js';
import { checkoutOrUnavailable, type Pool } from './connect.js';
import { translate } from './errors.js';
import { LOCK_CLASS } from './migrate.js';
import type { SchemaNames } from './schema.js';

// The certificates' ledger in the sandbox's shared schema: one signing key for every process, the
// certificates issued and their revocations. A rotation runs under an advisory lock: two rotations at
// once retire one key each, in turn, and one key signs at any time.

const KEY = `kid, private_key AS "privateKey", x, created_at AS "createdAt", retired_at AS "retiredAt"`;
const CERTIFICATE = `id, integration_id AS "integrationId", store_id AS "storeId", system, environment, session_started_at AS "sessionStartedAt",
  kid, jws, report, report_sha256 AS "reportSha256", issued_at AS "issuedAt", revoked_at AS "revokedAt"`;

export function pgCertificates(conn: Conn, pool: Pool, names: SchemaNames): CertificateLedger {
  const t = tableIn(names.shared);
  const current = statement(`SELECT ${KEY} FROM ${t('signing_keys')} WHERE retired_at IS NULL`);
  const insertKey = statement(`INSERT INTO ${t('signing_keys')} (kid, private_key, x, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`);
  const keys = statement(`SELECT ${KEY} FROM ${t('signing_keys')} ORDER BY retired_at IS NULL DESC, created_at DESC, kid`);
  const insert = statement(
    `INSERT INTO ${t('certificates')} (id, integration_id, store_id, system, environment, session_started_at, kid, jws, report, report_sha256, issued_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (integration_id, session_started_at) DO NOTHING`,
  );
  const bySession = statement(`SELECT ${CERTIFICATE} FROM ${t('certificates')} WHERE integration_id = $1 AND session_started_at = $2`);
  const byId = statement(`SELECT ${CERTIFICATE} FROM ${t('certificates')} WHERE id = $1`);
  const list = statement(`SELECT ${CERTIFICATE} FROM ${t('certificates')} ORDER BY issued_at DESC, id DESC LIMIT $1`);
  const revoke = statement(`UPDATE ${t('certificates')} SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${CERTIFICATE}`);
  const revoked = statement(`SELECT id, revoked_at AS "revokedAt" FROM ${t('certificates')} WHERE revoked_at IS NOT NULL ORDER BY revoked_at, id`);
  const first = async () => (await conn.rows<SigningKeyRecord>(current))[0];
  return {
    async currentKey(make) {
      const found = await first();
      if (found) return found;
      const key = make();
      // Processes starting together: the first insert wins (one current key, a unique index), the others read it.
      await conn.run(insertKey, [key.kid, key.privateKey, key.x, key.createdAt]);
      return (await first())!;
    },
    keys: async () => conn.rows<SigningKeyRecord>(keys),
    async rotate(key, now) {
      const client = await checkoutOrUnavailable(pool);
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS.signingKeys, names.prefix]);
        const { rows } = await client.query<{ kid: string }>(`UPDATE ${t('signing_keys')} SET retired_at = $1 WHERE retired_at IS NULL RETURNING kid`, [now]);
        await client.query(`INSERT INTO ${t('signing_keys')} (kid, private_key, x, created_at) VALUES ($1, $2, $3, $4)`, [key.kid, key.privateKey, key.x, key.createdAt]);
        await client.query('COMMIT');
        return rows.map((r) => r.kid);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw translate(error);
      } finally {
        client.release();
      }
    },
    async issue(c) {
      await conn.run(insert, [c.id, c.integrationId, c.storeId, c.system, c.environment, c.sessionStartedAt, c.kid, c.jws, c.report, c.reportSha256, c.issuedAt, c.revokedAt]);
      return (await conn.rows<CertificateRecord>(bySession, [c.integrationId, c.sessionStartedAt]))[0]!;
    },
    bySession: async (integrationId, startedAt) => (await conn.rows<CertificateRecord>(bySession, [integrationId, startedAt]))[0],
    byId: async (id) => (await conn.rows<CertificateRecord>(byId, [id]))[0],
    list: async (limit) => conn.rows<CertificateRecord>(list, [limit]),
    revoke: async (id, now) => (await conn.rows<CertificateRecord>(revoke, [id, now]))[0],
    revoked: async () => conn.rows<{ id: string; revokedAt: number }>(revoked),
  };
}
