import type { Emulator } from '../emulator.js';
import { presentStore } from '../present/store.js';
import { clockView } from './system.js';
import { storeAlerts } from '../orders/alerts.js';
import { webhookView } from '../webhooks/view.js';

/** DESIGN: environments, stores (with alerts), integrations (settings, scopes, status, webhook), clock. */
export function describeState(emulator: Emulator) {
  return {
    clock: clockView(emulator),
    environments: Object.values(emulator.envs).map((env) => ({
      name: env.name,
      base_path: env.basePath,
      stores: env.stores.all().map((store) => ({
        ...presentStore(env, store),
        suspended: store.suspended,
        accepting_switch: store.switchOn,
        alerts: storeAlerts(env, store.id),
        integrations: env.integrations.byStore(store.id).map((i) => ({
          id: i.id,
          system: i.system,
          status: i.status,
          scopes: i.scopes,
          settings: i.settings,
          webhook: webhookView(env, i.id),
        })),
      })),
    })),
  };
}
