import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { IntegrationRecord, StoreRecord } from '../stores/repository.js';
import { presentStore } from '../stores/present.js';
import { clockView } from './system.js';
import type { ControlAccess } from './access.js';
import { storeAlerts } from '../orders/alerts.js';
import { webhookView } from '../webhooks/present.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';

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

/**
 * DESIGN: environments, stores (with alerts), integrations (settings, scopes, status, webhook), clock.
 * A store token sees its own environment and store only, and `access` says so (the panel shows no
 * sandbox control to it).
 */
export async function describeState(emulator: Emulator, access: ControlAccess = { role: 'admin' }) {
  const own = access.role === 'store' ? access : null;
  const environments = [];
  for (const env of Object.values(emulator.envs)) {
    if (own && env.name !== own.environment) continue;
    const stores = [];
    for (const store of await env.store.stores.all()) {
      if (own && store.id !== own.storeId) continue;
      const integrations = [];
      for (const i of await env.store.integrations.byStore(store.id)) {
        integrations.push({ ...(await integrationView(env, i)), webhook: await webhookView(env, i.id) });
      }
      stores.push({ ...(await storeView(env, store)), alerts: await storeAlerts(env, store.id), integrations });
    }
    environments.push({ name: env.name, base_path: env.basePath, stores });
  }
  return {
    clock: clockView(emulator),
    limits: emulator.options.limits,
    access: { role: access.role, store_id: own ? own.storeId : null },
    environments,
  };
}
