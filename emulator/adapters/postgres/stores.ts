import type { Environment } from '../../../src/contract/store.js';
import type {
  AuthRecords, CredentialRecord, CredentialsRepository, IntegrationRecord, IntegrationsRepository, IntegrationStatus, StoreRecord, StoresRepository,
} from '../../stores/repository.js';
import { statement, tableIn, type Conn } from './conn.js';

// The stores aggregate's tables: stores (and their tokens), integrations, credentials. Every write is an `auth` change
// (what authentication reads); taking an order number is not.

interface StoreRow {
  id: string;
  slug: string;
  name: string;
  switchOn: boolean;
  suspended: boolean;
  paymentMethods: string;
  fulfillmentTypes: string;
  createdAt: number;
  updatedAt: number;
}

const toStore = (r: StoreRow): StoreRecord => ({
  ...r,
  paymentMethods: JSON.parse(r.paymentMethods),
  fulfillmentTypes: JSON.parse(r.fulfillmentTypes),
});

const STORE = `id, slug, name, switch_on AS "switchOn", suspended, payment_methods AS "paymentMethods",
  fulfillment_types AS "fulfillmentTypes", created_at AS "createdAt", updated_at AS "updatedAt"`;

export function storesSql(schema: string) {
  const t = tableIn(schema);
  return {
    insert: statement(
      `INSERT INTO ${t('stores')} (id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at)
       VALUES ($1, $2, $3, $4, false, $5, $6, $7, $7)`,
    ),
    byId: statement(`SELECT ${STORE} FROM ${t('stores')} WHERE id = $1`),
    slugTaken: statement(`SELECT 1 FROM ${t('stores')} WHERE slug = $1`),
    all: statement(`SELECT ${STORE} FROM ${t('stores')} ORDER BY created_at, id`),
    update: statement(
      `UPDATE ${t('stores')} SET switch_on = $2, suspended = $3, payment_methods = $4, fulfillment_types = $5, updated_at = $6 WHERE id = $1`,
    ),
    // The row stays locked until the transaction ends: numbers are handed out one at a time per store.
    nextNumber: statement(`UPDATE ${t('stores')} SET order_seq = order_seq + 1 WHERE id = $1 RETURNING order_seq AS n`),
    hasActiveProduct: statement(
      `SELECT EXISTS (SELECT 1 FROM ${t('products')} p JOIN ${t('categories')} c ON c.id = p.category_id
       WHERE p.store_id = $1 AND p.active AND c.active) AS n`,
    ),
    setToken: statement(
      `INSERT INTO ${t('store_tokens')} (store_id, token_sha256, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (store_id) DO UPDATE SET token_sha256 = excluded.token_sha256, created_at = excluded.created_at`,
    ),
    dropToken: statement(`DELETE FROM ${t('store_tokens')} WHERE store_id = $1`),
    storeOfToken: statement(`SELECT store_id AS "storeId" FROM ${t('store_tokens')} WHERE token_sha256 = $1`),
  };
}

export function pgStores(conn: Conn, s: ReturnType<typeof storesSql>, environment: Environment): StoresRepository {
  const auth = () => conn.changed({ topic: 'auth', environment });
  return {
    async insert(store, now) {
      await conn.run(s.insert, [
        store.id, store.slug, store.name, store.switchOn, JSON.stringify(store.paymentMethods), JSON.stringify(store.fulfillmentTypes), now,
      ]);
      auth();
    },
    async byId(id) {
      const [row] = await conn.rows<StoreRow>(s.byId, [id]);
      return row ? toStore(row) : undefined;
    },
    async slugTaken(slug) {
      return (await conn.rows(s.slugTaken, [slug])).length > 0;
    },
    async all() {
      return (await conn.rows<StoreRow>(s.all)).map(toStore);
    },
    async update(store, now) {
      await conn.run(s.update, [
        store.id, store.switchOn, store.suspended, JSON.stringify(store.paymentMethods), JSON.stringify(store.fulfillmentTypes), now,
      ]);
      auth();
    },
    async nextOrderNumber(storeId) {
      const [row] = await conn.rows<{ n: number }>(s.nextNumber, [storeId]);
      if (!row) throw new Error(`no store ${storeId}`);
      return row.n;
    },
    async hasActiveProduct(storeId) {
      return (await conn.rows<{ n: boolean }>(s.hasActiveProduct, [storeId]))[0]!.n;
    },
    // Tokens are read from the table on every control call (never cached): no change to report.
    async setToken(storeId, digest, now) {
      await conn.run(s.setToken, [storeId, digest, now]);
    },
    dropToken: async (storeId) => (await conn.run(s.dropToken, [storeId])) > 0,
    storeOfToken: async (digest) => (await conn.rows<{ storeId: string }>(s.storeOfToken, [digest]))[0]?.storeId,
  };
}

interface IntegrationRow {
  id: string;
  storeId: string;
  system: string;
  status: IntegrationStatus;
  scopes: string;
  settings: string;
  createdAt: number;
  updatedAt: number;
}

const toIntegration = (r: IntegrationRow): IntegrationRecord => ({ ...r, scopes: JSON.parse(r.scopes), settings: JSON.parse(r.settings) });

const INTEGRATION = `id, store_id AS "storeId", system, status, scopes, settings, created_at AS "createdAt", updated_at AS "updatedAt"`;

export function integrationsSql(schema: string) {
  const t = tableIn(schema);
  return {
    insert: statement(
      `INSERT INTO ${t('integrations')} (id, store_id, system, status, scopes, settings, created_at, updated_at)
       VALUES ($1, $2, $3, 'inactive', $4, $5, $6, $6)`,
    ),
    byId: statement(`SELECT ${INTEGRATION} FROM ${t('integrations')} WHERE id = $1`),
    byStore: statement(`SELECT ${INTEGRATION} FROM ${t('integrations')} WHERE store_id = $1 ORDER BY created_at, id`),
    all: statement(`SELECT ${INTEGRATION} FROM ${t('integrations')} ORDER BY created_at, id`),
    update: statement(`UPDATE ${t('integrations')} SET status = $2, scopes = $3, settings = $4, updated_at = $5 WHERE id = $1`),
    activate: statement(`UPDATE ${t('integrations')} SET status = 'active', updated_at = $2 WHERE id = $1 AND status = 'inactive'`),
  };
}

export function pgIntegrations(conn: Conn, s: ReturnType<typeof integrationsSql>, environment: Environment): IntegrationsRepository {
  const auth = () => conn.changed({ topic: 'auth', environment });
  return {
    async insert(i, now) {
      await conn.run(s.insert, [i.id, i.storeId, i.system, JSON.stringify(i.scopes), JSON.stringify(i.settings), now]);
      auth();
    },
    async byId(id) {
      const [row] = await conn.rows<IntegrationRow>(s.byId, [id]);
      return row ? toIntegration(row) : undefined;
    },
    byStore: async (storeId) => (await conn.rows<IntegrationRow>(s.byStore, [storeId])).map(toIntegration),
    all: async () => (await conn.rows<IntegrationRow>(s.all)).map(toIntegration),
    async update(i, now) {
      await conn.run(s.update, [i.id, i.status, JSON.stringify(i.scopes), JSON.stringify(i.settings), now]);
      auth();
    },
    async activate(id, now) {
      const changed = (await conn.run(s.activate, [id, now])) > 0;
      if (changed) auth();
      return changed;
    },
  };
}

const CREDENTIAL = `key_id AS "keyId", integration_id AS "integrationId", secret_sha256 AS "secretSha256", created_at AS "createdAt",
  expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

export function credentialsSql(schema: string) {
  const t = tableIn(schema);
  return {
    insert: statement(`INSERT INTO ${t('credentials')} (key_id, integration_id, secret_sha256, created_at) VALUES ($1, $2, $3, $4)`),
    byKey: statement(`SELECT ${CREDENTIAL} FROM ${t('credentials')} WHERE key_id = $1`),
    live: statement(`SELECT ${CREDENTIAL} FROM ${t('credentials')} WHERE integration_id = $1 AND revoked_at IS NULL ORDER BY created_at, key_id`),
    byIntegration: statement(`SELECT ${CREDENTIAL} FROM ${t('credentials')} WHERE integration_id = $1 ORDER BY created_at, key_id`),
    expireOthers: statement(
      `UPDATE ${t('credentials')} SET expires_at = $3
       WHERE integration_id = $1 AND key_id <> $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)`,
    ),
    revoke: statement(`UPDATE ${t('credentials')} SET revoked_at = $3 WHERE key_id = $1 AND integration_id = $2 AND revoked_at IS NULL`),
    // The three records of an API request's credential in one statement (issue 25), each under a prefix.
    withRecords: statement(`SELECT ${AUTH_RECORD_COLUMNS} ${authRecordsFrom(schema)} WHERE c.key_id = $1`),
  };
}

/** The columns of a credential's three records (credential c, integration i, store s), each under a prefix (`authRecordsOf`). */
export const AUTH_RECORD_COLUMNS = `${prefixed('c.', 'c_', CREDENTIAL)}, ${prefixed('i.', 'i_', INTEGRATION)}, ${prefixed('s.', 's_', STORE)}`;

/** An integration `i`'s columns under the prefix `i_` (`integrationOf`). */
export const INTEGRATION_COLUMNS = () => prefixed('i.', 'i_', INTEGRATION);

/** The integration of a row read with INTEGRATION_COLUMNS. */
export const integrationOf = (row: Record<string, unknown>): IntegrationRecord => toIntegration(unprefixed<IntegrationRow>(row, 'i_'));

/** The join the three records are read from (`c.key_id` picks the credential). */
export const authRecordsFrom = (schema: string) => {
  const t = tableIn(schema);
  return `FROM ${t('credentials')} c JOIN ${t('integrations')} i ON i.id = c.integration_id JOIN ${t('stores')} s ON s.id = i.store_id`;
};

/** The records of a row read with AUTH_RECORD_COLUMNS. */
export function authRecordsOf(row: Record<string, unknown>): AuthRecords {
  return {
    credential: unprefixed<CredentialRecord>(row, 'c_'),
    integration: toIntegration(unprefixed<IntegrationRow>(row, 'i_')),
    store: toStore(unprefixed<StoreRow>(row, 's_')),
  };
}

/** `id, store_id AS "storeId"` → `i.id AS "i_id", i.store_id AS "i_storeId"`: a column list under a table alias and a prefix. */
export function prefixed(table: string, prefix: string, columns: string): string {
  return columns
    .split(',')
    .map((c) => c.trim())
    .map((c) => {
      const [column, alias] = c.split(/\s+AS\s+/);
      return `${table}${column} AS "${prefix}${(alias ?? column!).replace(/"/g, '')}"`;
    })
    .join(', ');
}

/** The fields of one prefix of a row, without it. */
export function unprefixed<T>(row: Record<string, unknown>, prefix: string): T {
  const out: Record<string, unknown> = {};
  for (const key in row) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = row[key];
  return out as T;
}

export function pgCredentials(conn: Conn, s: ReturnType<typeof credentialsSql>, environment: Environment): CredentialsRepository {
  const auth = () => conn.changed({ topic: 'auth', environment });
  return {
    async insert(keyId, integrationId, digest, now) {
      await conn.run(s.insert, [keyId, integrationId, digest, now]);
      auth();
    },
    byKey: async (keyId) => (await conn.rows<CredentialRecord>(s.byKey, [keyId]))[0],
    async withRecords(keyId) {
      const [row] = await conn.rows<Record<string, unknown>>(s.withRecords, [keyId]);
      return row && authRecordsOf(row);
    },
    notRevoked: (integrationId) => conn.rows<CredentialRecord>(s.live, [integrationId]),
    byIntegration: (integrationId) => conn.rows<CredentialRecord>(s.byIntegration, [integrationId]),
    async expireOthers(integrationId, keep, expiresAt) {
      if ((await conn.run(s.expireOthers, [integrationId, keep, expiresAt])) > 0) auth();
    },
    async revoke(keyId, integrationId, now) {
      const changed = (await conn.run(s.revoke, [keyId, integrationId, now])) > 0;
      if (changed) auth();
      return changed;
    },
  };
}
