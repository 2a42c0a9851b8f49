import type { EnvContext } from '../context.js';
import type { StoreRecord } from '../data/stores.js';
import type { IntegrationRecord } from '../data/integrations.js';
import type { CredentialRow } from '../data/credentials.js';
import type { MeContext, Store } from '../../src/contract/store.js';
import { API_VERSION } from '../../src/contract/limits.js';
import { formatNullableDate } from '../../src/contract/dates.js';

/** DESIGN: `accepting_orders` reads true only while the switch is on and there is an active product. */
export function acceptingOrders(env: EnvContext, store: StoreRecord): boolean {
  return store.switchOn && !store.suspended && env.stores.hasActiveProduct(store.id);
}

export function presentStore(env: EnvContext, store: StoreRecord): Store {
  return {
    id: store.id,
    slug: store.slug,
    name: store.name,
    timezone: 'America/Asuncion',
    currency: 'PYG',
    accepting_orders: acceptingOrders(env, store),
    fulfillment_types: store.fulfillmentTypes,
    payment_methods: store.paymentMethods,
  };
}

export function presentMe(env: EnvContext, integration: IntegrationRecord, store: StoreRecord, credential: CredentialRow): MeContext {
  return {
    integration: {
      id: integration.id,
      system: integration.system,
      status: integration.status,
      scopes: integration.scopes,
      settings: integration.settings,
      environment: env.name,
      credential: { key_id: credential.key_id, expires_at: formatNullableDate(credential.expires_at) },
    },
    store: { id: store.id, slug: store.slug, name: store.name },
    api_version: API_VERSION,
  };
}
