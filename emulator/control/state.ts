import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { StoreRecord } from '../data/stores.js';
import type { IntegrationRecord } from '../data/integrations.js';
import { presentStore } from '../stores/present.js';
import { clockView } from './system.js';
import { storeAlerts } from '../orders/alerts.js';
import { webhookView } from '../webhooks/view.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';

/** A store as the panel sees it: the API's Store plus the switch, suspension and environment. */
export function storeView(env: EnvContext, store: StoreRecord) {
  return {
    ...presentStore(env, store),
    environment: env.name,
    suspended: store.suspended,
    accepting_switch: store.switchOn,
  };
}

/** An integration as the panel sees it; credentials by key id only (secrets are never kept). */
export function integrationView(env: EnvContext, i: IntegrationRecord) {
  return {
    id: i.id,
    store_id: i.storeId,
    environment: env.name,
    system: i.system,
    status: i.status,
    scopes: i.scopes,
    settings: i.settings,
    credentials: env.credentials.byIntegration(i.id).map((c) => ({
      key_id: c.key_id,
      created_at: formatDate(c.created_at),
      expires_at: formatNullableDate(c.expires_at),
      revoked_at: formatNullableDate(c.revoked_at),
    })),
  };
}

/** DESIGN: environments, stores (with alerts), integrations (settings, scopes, status, webhook), clock. */
export function describeState(emulator: Emulator) {
  return {
    clock: clockView(emulator),
    limits: emulator.options.limits,
    environments: Object.values(emulator.envs).map((env) => ({
      name: env.name,
      base_path: env.basePath,
      stores: env.stores.all().map((store) => ({
        ...storeView(env, store),
        alerts: storeAlerts(env, store.id),
        integrations: env.integrations.byStore(store.id).map((i) => ({
          ...integrationView(env, i),
          webhook: webhookView(env, i.id),
        })),
      })),
    })),
  };
}
