import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import { integrationView, storeView } from '../stores/present.js';
import { clockView } from './system.js';
import type { ControlAccess } from '../http/control-access.js';
import { storeAlerts } from '../orders/alerts.js';
import { webhookView } from '../webhooks/present.js';

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
