import type { EnvContext } from '../context.js';
import type { StoreRecord } from '../data/stores.js';
import { presentStore } from './present.js';

export type StoreChange = Partial<Pick<StoreRecord, 'switchOn' | 'suspended' | 'paymentMethods' | 'fulfillmentTypes'>>;

/**
 * Applies a store change (API or panel) and, when what integrations see changed (order reception,
 * payment methods, fulfillment types), emits `store.updated` in the same transaction.
 */
export function changeStore(env: EnvContext, storeId: string, change: StoreChange): StoreRecord {
  return env.tx(() => {
    const before = env.stores.byId(storeId)!;
    const shownBefore = presentStore(env, before);
    const after: StoreRecord = { ...before, ...change };
    env.stores.update(after, env.clock.now());
    const stored = env.stores.byId(storeId)!;
    const shownAfter = presentStore(env, stored);
    const changed = (['accepting_orders', 'payment_methods', 'fulfillment_types'] as const).filter(
      (k) => JSON.stringify(shownBefore[k]) !== JSON.stringify(shownAfter[k]),
    );
    if (changed.length > 0) env.emit('store.updated', storeId, { store: shownAfter, changed });
    return stored;
  });
}
