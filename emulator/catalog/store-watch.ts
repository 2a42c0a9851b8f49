import type { EnvContext } from '../context.js';
import { acceptingOrders, presentStore } from '../stores/present.js';

/**
 * Runs a catalog write and, when it flips the store's `accepting_orders` (DESIGN: it reads true only
 * with an active product), emits `store.updated` in the same transaction (spec: Events, store.updated).
 */
export function watchAcceptingOrders<T>(env: EnvContext, storeId: string, write: () => T): T {
  return env.tx(() => {
    const before = env.stores.byId(storeId);
    const was = before ? acceptingOrders(env, before) : false;
    const out = write();
    const after = env.stores.byId(storeId);
    if (after && acceptingOrders(env, after) !== was) {
      env.emit('store.updated', storeId, { store: presentStore(env, after), changed: ['accepting_orders'] });
    }
    return out;
  });
}
