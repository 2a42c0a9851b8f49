import type { EnvContext } from '../context.js';
import type { CredentialRecord, IntegrationRecord, StoreRecord, StoresRepository } from './repository.js';
import type { MeContext, Store } from '../../src/contract/store.js';
import { API_VERSION } from '../../src/contract/limits.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';

/** DESIGN: `accepting_orders` reads true only while the switch is on and there is an active product. */
export async function acceptingOrders(stores: StoresRepository, store: StoreRecord): Promise<boolean> {
  return acceptingWith(store, await stores.hasActiveProduct(store.id));
}

/** `acceptingOrders` with the store's `hasActiveProduct` read already (sent with other reads). */
export function acceptingWith(store: StoreRecord, hasActiveProduct: boolean): boolean {
  return store.switchOn && !store.suspended && hasActiveProduct;
}

export async function presentStore(stores: StoresRepository, store: StoreRecord): Promise<Store> {
  return {
    id: store.id,
    slug: store.slug,
    name: store.name,
    timezone: 'America/Asuncion',
    currency: 'PYG',
    accepting_orders: await acceptingOrders(stores, store),
    fulfillment_types: store.fulfillmentTypes,
    payment_methods: store.paymentMethods,
  };
}

export function presentMe(env: EnvContext, integration: IntegrationRecord, store: StoreRecord, credential: CredentialRecord): MeContext {
  return {
    integration: {
      id: integration.id,
      system: integration.system,
      status: integration.status,
      scopes: integration.scopes,
      settings: integration.settings,
      environment: env.name,
      credential: { key_id: credential.keyId, expires_at: formatNullableDate(credential.expiresAt) },
    },
    store: { id: store.id, slug: store.slug, name: store.name },
    api_version: API_VERSION,
  };
}

/** A store as the panel sees it: the API's Store plus the switch, suspension and environment. */
export async function storeView(env: EnvContext, store: StoreRecord) {
  return {
    ...(await presentStore(env.store.stores, store)),
    environment: env.name,
    suspended: store.suspended,
    accepting_switch: store.switchOn,
  };
}

/** An integration as the panel sees it; credentials by key id only (secrets are never kept). */
export async function integrationView(env: EnvContext, i: IntegrationRecord) {
  return {
    id: i.id,
    store_id: i.storeId,
    environment: env.name,
    system: i.system,
    status: i.status,
    scopes: i.scopes,
    settings: i.settings,
    credentials: (await env.store.credentials.byIntegration(i.id)).map((c) => ({
      key_id: c.keyId,
      created_at: formatDate(c.createdAt),
      expires_at: formatNullableDate(c.expiresAt),
      revoked_at: formatNullableDate(c.revokedAt),
    })),
  };
}
