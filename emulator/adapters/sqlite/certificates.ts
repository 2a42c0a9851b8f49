import type { CertificateLedger, CertificateRecord, SigningKeyRecord } from '../../certificates/repository.js';
import type { Environment } from '../../../src/contract/store.js';
import type { Db } from './open.js';
import { prepareLazily } from './lazy-statement.js';

interface KeyRow {
  kid: string;
  private_key: Buffer;
  x: string;
  created_at: number;
  retired_at: number | null;
}

interface CertificateRow {
  id: string;
  integration_id: string;
  store_id: string;
  system: string;
  environment: Environment;
  session_started_at: number;
  kid: string;
  jws: string;
  report: string;
  report_sha256: string;
  issued_at: number;
  revoked_at: number | null;
}

const toKey = (r: KeyRow): SigningKeyRecord => ({ kid: r.kid, privateKey: r.private_key, x: r.x, createdAt: r.created_at, retiredAt: r.retired_at });
const toCertificate = (r: CertificateRow): CertificateRecord => ({
  id: r.id, integrationId: r.integration_id, storeId: r.store_id, system: r.system, environment: r.environment, sessionStartedAt: r.session_started_at,
  kid: r.kid, jws: r.jws, report: r.report, reportSha256: r.report_sha256, issuedAt: r.issued_at, revokedAt: r.revoked_at,
});

/** The certificates' ledger in the sandbox's database (sandbox-db.ts): one process, each call one step. */
export function sqliteCertificates(db: Db): CertificateLedger {
  const current = prepareLazily<[], KeyRow>(db, 'SELECT * FROM signing_keys WHERE retired_at IS NULL');
  const insertKey = prepareLazily(db, 'INSERT INTO signing_keys (kid, private_key, x, created_at) VALUES (@kid, @private_key, @x, @created_at)');
  const keys = prepareLazily<[], KeyRow>(db, 'SELECT * FROM signing_keys ORDER BY retired_at IS NULL DESC, created_at DESC, kid');
  const retire = prepareLazily<[number], { kid: string }>(db, 'UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL RETURNING kid');
  const insert = prepareLazily(db,
    `INSERT INTO certificates (id, integration_id, store_id, system, environment, session_started_at, kid, jws, report, report_sha256, issued_at, revoked_at)
     VALUES (@id, @integration_id, @store_id, @system, @environment, @session_started_at, @kid, @jws, @report, @report_sha256, @issued_at, @revoked_at)
     ON CONFLICT (integration_id, session_started_at) DO NOTHING`,
  );
  const bySession = prepareLazily<[string, number], CertificateRow>(db, 'SELECT * FROM certificates WHERE integration_id = ? AND session_started_at = ?');
  const byId = prepareLazily<[string], CertificateRow>(db, 'SELECT * FROM certificates WHERE id = ?');
  const list = prepareLazily<[number], CertificateRow>(db, 'SELECT * FROM certificates ORDER BY issued_at DESC, id DESC LIMIT ?');
  const revoke = prepareLazily(db, 'UPDATE certificates SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?');
  const revoked = prepareLazily<[], { id: string; revoked_at: number }>(db, 'SELECT id, revoked_at FROM certificates WHERE revoked_at IS NOT NULL ORDER BY revoked_at, id');
  const rotate = db.transaction((key: Parameters<CertificateLedger['rotate']>[0], now: number) => {
    const retired = retire.all(now).map((r) => r.kid);
    insertKey.run({ kid: key.kid, private_key: key.privateKey, x: key.x, created_at: key.createdAt });
    return retired;
  });
  return {
    async currentKey(make) {
      let row = current.get();
      if (!row) {
        const key = make();
        insertKey.run({ kid: key.kid, private_key: key.privateKey, x: key.x, created_at: key.createdAt });
        row = current.get()!;
      }
      return toKey(row);
    },
    keys: async () => keys.all().map(toKey),
    rotate: async (key, now) => rotate(key, now),
    async issue(c) {
      insert.run({
        id: c.id, integration_id: c.integrationId, store_id: c.storeId, system: c.system, environment: c.environment, session_started_at: c.sessionStartedAt,
        kid: c.kid, jws: c.jws, report: c.report, report_sha256: c.reportSha256, issued_at: c.issuedAt, revoked_at: c.revokedAt,
      });
      return toCertificate(bySession.get(c.integrationId, c.sessionStartedAt)!);
    },
    async bySession(integrationId, startedAt) {
      const row = bySession.get(integrationId, startedAt);
      return row ? toCertificate(row) : undefined;
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toCertificate(row) : undefined;
    },
    list: async (limit) => list.all(limit).map(toCertificate),
    async revoke(id, now) {
      revoke.run(now, id);
      const row = byId.get(id);
      return row ? toCertificate(row) : undefined;
    },
    revoked: async () => revoked.all().map((r) => ({ id: r.id, revokedAt: r.revoked_at })),
  };
}
