import type { AccessRequestsRepository, AccessRequestRecord } from '../../access/repository.js';
import type { AccessRequestStatus } from '../../../src/contract/access-requests.js';
import type { Db } from './open.js';
import { prepareLazily } from './lazy-statement.js';

interface Row {
  id: string;
  status: AccessRequestStatus;
  company: string;
  contact_email: string;
  system: string;
  claim_sha256: Buffer;
  seal_key: Buffer;
  reason: string | null;
  store_id: string | null;
  integration_id: string | null;
  sealed: Buffer | null;
  created_at: number;
  decided_at: number | null;
  handed_over_at: number | null;
}

const toRecord = (r: Row): AccessRequestRecord => ({
  id: r.id, status: r.status, company: r.company, contactEmail: r.contact_email, system: r.system, claimSha256: r.claim_sha256, sealKey: r.seal_key,
  reason: r.reason, storeId: r.store_id, integrationId: r.integration_id, sealed: r.sealed, createdAt: r.created_at, decidedAt: r.decided_at, claimedAt: r.handed_over_at,
});

/** The access requests' table; one process owns the database, so a count and the write after it are one step. */
export function sqliteAccessRequests(db: Db): AccessRequestsRepository {
  const insert = prepareLazily(db,
    `INSERT INTO access_requests (id, status, company, contact_email, system, claim_sha256, seal_key, created_at)
     SELECT @id, 'pending', @company, @contact_email, @system, @claim_sha256, @seal_key, @now
     WHERE (SELECT count(*) FROM access_requests WHERE status = 'pending') < @cap`,
  );
  const byId = prepareLazily<[string], Row>(db, 'SELECT * FROM access_requests WHERE id = ?');
  const list = prepareLazily<[string | null, string | null, number], Row>(db,
    'SELECT * FROM access_requests WHERE (? IS NULL OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const approve = prepareLazily(db,
    `UPDATE access_requests SET status = 'approved', store_id = @store_id, integration_id = @integration_id, sealed = @sealed, decided_at = @now
     WHERE id = @id AND status = 'pending'`,
  );
  const deny = prepareLazily(db, `UPDATE access_requests SET status = 'denied', reason = @reason, decided_at = @now WHERE id = @id AND status = 'pending'`);
  const sealedOf = prepareLazily<[string], { sealed: Buffer }>(db, 'SELECT sealed FROM access_requests WHERE id = ? AND sealed IS NOT NULL');
  const take = prepareLazily(db, 'UPDATE access_requests SET sealed = NULL, handed_over_at = ? WHERE id = ?');
  const takeSealed = db.transaction((id: string, now: number): Buffer | null => {
    const row = sealedOf.get(id);
    if (!row) return null;
    take.run(now, id);
    return row.sealed;
  });
  return {
    async insertPending(r, cap, now) {
      return insert.run({ id: r.id, company: r.company, contact_email: r.contactEmail, system: r.system, claim_sha256: r.claimSha256, seal_key: r.sealKey, now, cap }).changes === 1;
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async list(status, limit) {
      return list.all(status, status, limit).map(toRecord);
    },
    async approve(id, a, now) {
      return approve.run({ id, store_id: a.storeId, integration_id: a.integrationId, sealed: a.sealed, now }).changes === 1;
    },
    async deny(id, reason, now) {
      return deny.run({ id, reason, now }).changes === 1;
    },
    // A transaction of its own only outside the unit of work that may hold one (better-sqlite3 nests it as a savepoint).
    async takeSealed(id, now) {
      return takeSealed(id, now);
    },
  };
}
