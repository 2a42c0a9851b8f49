import type { Db } from './open.js';
import type {
  CredentialRecord, CredentialsRepository, IntegrationRecord, IntegrationsRepository, IntegrationStatus, StoreRecord, StoresRepository,
} from '../../stores/repository.js';
import { prepareLazily } from './lazy-statement.js';

// The stores aggregate's tables: stores (and their tokens), integrations, credentials.

interface StoreRow {
  id: string;
  slug: string;
  name: string;
  switch_on: number;
  suspended: number;
  payment_methods: string;
  fulfillment_types: string;
  created_at: number;
  updated_at: number;
}

const toStore = (r: StoreRow): StoreRecord => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  switchOn: r.switch_on === 1,
  suspended: r.suspended === 1,
  paymentMethods: JSON.parse(r.payment_methods),
  fulfillmentTypes: JSON.parse(r.fulfillment_types),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function sqliteStores(db: Db): StoresRepository {
  const insert = prepareLazily(db,
    `INSERT INTO stores (id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at)
     VALUES (@id, @slug, @name, @switch_on, 0, @payment_methods, @fulfillment_types, @now, @now)`,
  );
  const byId = prepareLazily<[string], StoreRow>(db, 'SELECT * FROM stores WHERE id = ?');
  const bySlug = prepareLazily<[string], { n: number }>(db, 'SELECT 1 AS n FROM stores WHERE slug = ?');
  const all = prepareLazily<[], StoreRow>(db, 'SELECT * FROM stores ORDER BY created_at, id');
  const update = prepareLazily(db,
    `UPDATE stores SET switch_on = @switch_on, suspended = @suspended, payment_methods = @payment_methods,
       fulfillment_types = @fulfillment_types, updated_at = @now WHERE id = @id`,
  );
  const nextNumber = prepareLazily<[string], { order_seq: number }>(db, 'UPDATE stores SET order_seq = order_seq + 1 WHERE id = ? RETURNING order_seq');
  // EXISTS stops at the first match; COUNT(*) walked every product and ran twice per catalog write.
  const hasActiveProduct = prepareLazily<[string], { n: number }>(db,
    `SELECT EXISTS (SELECT 1 FROM products p JOIN categories c ON c.id = p.category_id
     WHERE p.store_id = ? AND p.active = 1 AND c.active = 1) AS n`,
  );
  const setToken = prepareLazily(db,
    `INSERT INTO store_tokens (store_id, token_sha256, created_at) VALUES (?, ?, ?)
     ON CONFLICT (store_id) DO UPDATE SET token_sha256 = excluded.token_sha256, created_at = excluded.created_at`,
  );
  const dropToken = prepareLazily(db, 'DELETE FROM store_tokens WHERE store_id = ?');
  const storeOfToken = prepareLazily<[Buffer], { store_id: string }>(db, 'SELECT store_id FROM store_tokens WHERE token_sha256 = ?');
  return {
    async insert(s, now) {
      insert.run({
        id: s.id, slug: s.slug, name: s.name, switch_on: s.switchOn ? 1 : 0,
        payment_methods: JSON.stringify(s.paymentMethods), fulfillment_types: JSON.stringify(s.fulfillmentTypes), now,
      });
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toStore(row) : undefined;
    },
    async slugTaken(slug) {
      return bySlug.get(slug) !== undefined;
    },
    async all() {
      return all.all().map(toStore);
    },
    async update(s, now) {
      update.run({
        id: s.id, switch_on: s.switchOn ? 1 : 0, suspended: s.suspended ? 1 : 0,
        payment_methods: JSON.stringify(s.paymentMethods), fulfillment_types: JSON.stringify(s.fulfillmentTypes), now,
      });
    },
    async nextOrderNumber(storeId) {
      return nextNumber.get(storeId)!.order_seq;
    },
    async hasActiveProduct(storeId) {
      return hasActiveProduct.get(storeId)!.n > 0;
    },
    async setToken(storeId, digest, now) {
      setToken.run(storeId, digest, now);
    },
    async dropToken(storeId) {
      return dropToken.run(storeId).changes > 0;
    },
    async storeOfToken(digest) {
      return storeOfToken.get(digest)?.store_id;
    },
  };
}

interface IntegrationRow {
  id: string;
  store_id: string;
  system: string;
  status: string;
  scopes: string;
  settings: string;
  created_at: number;
  updated_at: number;
}

const toIntegration = (r: IntegrationRow): IntegrationRecord => ({
  id: r.id,
  storeId: r.store_id,
  system: r.system,
  status: r.status as IntegrationStatus,
  scopes: JSON.parse(r.scopes),
  settings: JSON.parse(r.settings),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function sqliteIntegrations(db: Db): IntegrationsRepository {
  const insert = prepareLazily(db,
    `INSERT INTO integrations (id, store_id, system, status, scopes, settings, created_at, updated_at)
     VALUES (@id, @store_id, @system, 'inactive', @scopes, @settings, @now, @now)`,
  );
  const byId = prepareLazily<[string], IntegrationRow>(db, 'SELECT * FROM integrations WHERE id = ?');
  const byStore = prepareLazily<[string], IntegrationRow>(db, 'SELECT * FROM integrations WHERE store_id = ? ORDER BY created_at, id');
  const all = prepareLazily<[], IntegrationRow>(db, 'SELECT * FROM integrations ORDER BY created_at, id');
  const update = prepareLazily(db, 'UPDATE integrations SET status = @status, scopes = @scopes, settings = @settings, updated_at = @now WHERE id = @id');
  const activate = prepareLazily(db, "UPDATE integrations SET status = 'active', updated_at = @now WHERE id = @id AND status = 'inactive'");
  return {
    async insert(i, now) {
      insert.run({ id: i.id, store_id: i.storeId, system: i.system, scopes: JSON.stringify(i.scopes), settings: JSON.stringify(i.settings), now });
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toIntegration(row) : undefined;
    },
    async byStore(storeId) {
      return byStore.all(storeId).map(toIntegration);
    },
    async all() {
      return all.all().map(toIntegration);
    },
    async update(i, now) {
      update.run({ id: i.id, status: i.status, scopes: JSON.stringify(i.scopes), settings: JSON.stringify(i.settings), now });
    },
    async activate(id, now) {
      return activate.run({ id, now }).changes > 0;
    },
  };
}

interface CredentialRow {
  key_id: string;
  integration_id: string;
  secret_sha256: Buffer;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

const toCredential = (r: CredentialRow): CredentialRecord => ({
  keyId: r.key_id,
  integrationId: r.integration_id,
  secretSha256: r.secret_sha256,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export function sqliteCredentials(db: Db): CredentialsRepository {
  const insert = prepareLazily(db, 'INSERT INTO credentials (key_id, integration_id, secret_sha256, created_at) VALUES (?, ?, ?, ?)');
  const byKey = prepareLazily<[string], CredentialRow>(db, 'SELECT * FROM credentials WHERE key_id = ?');
  const live = prepareLazily<[string], CredentialRow>(db, 'SELECT * FROM credentials WHERE integration_id = ? AND revoked_at IS NULL ORDER BY created_at, key_id');
  const byIntegration = prepareLazily<[string], CredentialRow>(db, 'SELECT * FROM credentials WHERE integration_id = ? ORDER BY created_at, key_id');
  const expireOthers = prepareLazily(db,
    `UPDATE credentials SET expires_at = @expires_at
     WHERE integration_id = @integration_id AND key_id != @keep AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > @expires_at)`,
  );
  const revoke = prepareLazily(db, 'UPDATE credentials SET revoked_at = ? WHERE key_id = ? AND integration_id = ? AND revoked_at IS NULL');
  return {
    async insert(keyId, integrationId, digest, now) {
      insert.run(keyId, integrationId, digest, now);
    },
    async byKey(keyId) {
      const row = byKey.get(keyId);
      return row ? toCredential(row) : undefined;
    },
    async notRevoked(integrationId) {
      return live.all(integrationId).map(toCredential);
    },
    async byIntegration(integrationId) {
      return byIntegration.all(integrationId).map(toCredential);
    },
    async expireOthers(integrationId, keep, expiresAt) {
      expireOthers.run({ integration_id: integrationId, keep, expires_at: expiresAt });
    },
    async revoke(keyId, integrationId, now) {
      return revoke.run(now, keyId, integrationId).changes > 0;
    },
  };
}
