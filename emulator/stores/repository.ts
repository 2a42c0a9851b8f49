import type { IntegrationSettings, IntegrationStatus, PaymentMethod, Scope } from '../../src/contract/store.js';

// The stores aggregate's records and repositories: stores, their integrations and credentials
// (what authentication reads). The adapters in emulator/store/* implement them.

export interface StoreRecord {
  id: string;
  slug: string;
  name: string;
  /** The merchant's switch (DESIGN: `accepting_orders` also needs an active product). */
  switchOn: boolean;
  suspended: boolean;
  paymentMethods: PaymentMethod[];
  fulfillmentTypes: ('delivery' | 'pickup')[];
  createdAt: number;
  updatedAt: number;
}

export interface NewStore {
  id: string;
  slug: string;
  name: string;
  switchOn: boolean;
  paymentMethods: PaymentMethod[];
  fulfillmentTypes: ('delivery' | 'pickup')[];
}

export interface StoresRepository {
  insert(store: NewStore, now: number): Promise<void>;
  byId(id: string): Promise<StoreRecord | undefined>;
  slugTaken(slug: string): Promise<boolean>;
  /** Every store, oldest first. */
  all(): Promise<StoreRecord[]>;
  /** Writes the switch, suspension, payment methods and fulfillment types. */
  update(store: StoreRecord, now: number): Promise<void>;
  /** The store's next order number (spec: Order.number, sequential per store). */
  nextOrderNumber(storeId: string): Promise<number>;
  /** An active product in an active category (DESIGN: what `accepting_orders` needs). */
  hasActiveProduct(storeId: string): Promise<boolean>;
  /** Keeps the digest of the store's token, replacing the one it had (the old token stops at once). */
  setToken(storeId: string, digest: Buffer, now: number): Promise<void>;
  /** Forgets the store's token; false when it had none. */
  dropToken(storeId: string): Promise<boolean>;
  /** The store whose token has this digest, if any. */
  storeOfToken(digest: Buffer): Promise<string | undefined>;
}

export type { IntegrationStatus };

export interface IntegrationRecord {
  id: string;
  storeId: string;
  system: string;
  status: IntegrationStatus;
  scopes: Scope[];
  settings: IntegrationSettings;
  createdAt: number;
  updatedAt: number;
}

export interface NewIntegration {
  id: string;
  storeId: string;
  system: string;
  scopes: Scope[];
  settings: IntegrationSettings;
}

export interface IntegrationsRepository {
  insert(integration: NewIntegration, now: number): Promise<void>;
  byId(id: string): Promise<IntegrationRecord | undefined>;
  /** The store's integrations, oldest first. */
  byStore(storeId: string): Promise<IntegrationRecord[]>;
  all(): Promise<IntegrationRecord[]>;
  update(integration: IntegrationRecord, now: number): Promise<void>;
  /** spec: Authentication 7 — `inactive` → `active`; false when it was not inactive. */
  activate(id: string, now: number): Promise<boolean>;
}

export interface CredentialRecord {
  /** The key part (`svk_…`), public. */
  keyId: string;
  integrationId: string;
  /** SHA-256 of the secret part (spec: Authentication 3). */
  secretSha256: Buffer;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface CredentialsRepository {
  insert(keyId: string, integrationId: string, digest: Buffer, now: number): Promise<void>;
  byKey(keyId: string): Promise<CredentialRecord | undefined>;
  /**
   * The credential with its integration and store, or undefined when any is missing: what every API
   * request reads (spec: Authentication). A server database reads them in one statement (issue 25);
   * left out, `authRecords` reads the three one after the other.
   */
  withRecords?(keyId: string): Promise<AuthRecords | undefined>;
  /** Credentials not revoked (expired ones included: callers check `expiresAt`), oldest first. */
  notRevoked(integrationId: string): Promise<CredentialRecord[]>;
  /** Every credential of the integration, revoked ones included (the panel's list). */
  byIntegration(integrationId: string): Promise<CredentialRecord[]>;
  /** Every other live credential of the integration expires at `expiresAt` unless it expires earlier. */
  expireOthers(integrationId: string, keep: string, expiresAt: number): Promise<void>;
  /** False when it was already revoked (or is another integration's). */
  revoke(keyId: string, integrationId: string, now: number): Promise<boolean>;
}

/** A credential with the integration and store it opens. */
export interface AuthRecords {
  credential: CredentialRecord;
  integration: IntegrationRecord;
  store: StoreRecord;
}

/** The credential of `keyId` with its integration and store (one read where the adapter has it). */
export async function authRecords(
  r: { credentials: CredentialsRepository; integrations: IntegrationsRepository; stores: StoresRepository },
  keyId: string,
): Promise<AuthRecords | undefined> {
  if (r.credentials.withRecords) return r.credentials.withRecords(keyId);
  const credential = await r.credentials.byKey(keyId);
  const integration = credential && (await r.integrations.byId(credential.integrationId));
  const store = integration && (await r.stores.byId(integration.storeId));
  if (!credential || !integration || !store) return undefined;
  return { credential, integration, store };
}
