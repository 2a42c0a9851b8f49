import type { Db } from '../store/sqlite/open.js';

export interface CredentialRow {
  key_id: string;
  integration_id: string;
  secret_sha256: Buffer;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export function createCredentialStatements(db: Db) {
  const insert = db.prepare(
    'INSERT INTO credentials (key_id, integration_id, secret_sha256, created_at) VALUES (?, ?, ?, ?)',
  );
  const byKey = db.prepare<[string], CredentialRow>('SELECT * FROM credentials WHERE key_id = ?');
  const live = db.prepare<[string], CredentialRow>(
    'SELECT * FROM credentials WHERE integration_id = ? AND revoked_at IS NULL ORDER BY created_at, key_id',
  );
  const byIntegration = db.prepare<[string], CredentialRow>(
    'SELECT * FROM credentials WHERE integration_id = ? ORDER BY created_at, key_id',
  );
  const expireOthers = db.prepare(
    `UPDATE credentials SET expires_at = @expires_at
     WHERE integration_id = @integration_id AND key_id != @keep AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > @expires_at)`,
  );
  const revoke = db.prepare('UPDATE credentials SET revoked_at = ? WHERE key_id = ? AND integration_id = ? AND revoked_at IS NULL');

  return {
    insert: (keyId: string, integrationId: string, digest: Buffer, now: number) => insert.run(keyId, integrationId, digest, now),
    byKey: (keyId: string) => byKey.get(keyId),
    /** Credentials not revoked (expired ones included: callers check `expires_at`). */
    notRevoked: (integrationId: string) => live.all(integrationId),
    /** Every credential of the integration, revoked ones included (the panel's list). */
    byIntegration: (integrationId: string) => byIntegration.all(integrationId),
    expireOthers: (integrationId: string, keep: string, expiresAt: number) =>
      expireOthers.run({ integration_id: integrationId, keep, expires_at: expiresAt }),
    revoke: (keyId: string, integrationId: string, now: number) => revoke.run(now, keyId, integrationId).changes > 0,
  };
}
export type CredentialStatements = ReturnType<typeof createCredentialStatements>;
