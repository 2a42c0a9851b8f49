import type { EnvContext } from '../context.js';
import type { CredentialRecord, IntegrationRecord, StoreRecord, StoresRepository } from './repository.js';
import type { MeContext, Store } from '../../src/contract/store.js';
import { API_VERSION } from '../../src/contract/limits.js';
import { formatNullableDate } from '../../src/contract/dates.js';

/** DESIGN: `accepting_orders` reads true only while the switch is on and there is an active product. */
export async function acceptingOrders(stores: StoresRepository, store: StoreRecord): Promise<boolean> {
  return store.switchOn && !store.suspended && (await stores.hasActiveProduct(store.id));
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
