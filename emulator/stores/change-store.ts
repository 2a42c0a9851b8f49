import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { StoreRecord } from './repository.js';
import { presentStore } from './present.js';

export type StoreChange = Partial<Pick<StoreRecord, 'switchOn' | 'suspended' | 'paymentMethods' | 'fulfillmentTypes'>>;

/**
 * Applies a store change (API or panel) and, when what integrations see changed (order reception,
 * payment methods, fulfillment types), emits `store.updated` in the same transaction.
 */
export async function changeStore(env: EnvContext, storeId: string, change: StoreChange): Promise<StoreRecord> {
  return env.store.tx(async (tx) => {
    const before = (await tx.stores.byId(storeId))!;
    const shownBefore = await presentStore(tx.stores, before);
    await tx.stores.update({ ...before, ...change }, env.clock.now());
    const stored = (await tx.stores.byId(storeId))!;
    const shownAfter = await presentStore(tx.stores, stored);
    const changed = (['accepting_orders', 'payment_methods', 'fulfillment_types'] as const).filter(
      (k) => JSON.stringify(shownBefore[k]) !== JSON.stringify(shownAfter[k]),
    );
    if (changed.length > 0) await tx.emit('store.updated', storeId, { store: shownAfter, changed });
    return stored;
  });
}

/**
 * Runs a catalog write in `tx` and, when it flips the store's `accepting_orders` (DESIGN: it reads
 * true only with an active product), emits `store.updated` in the same transaction (spec: Events).
 */
export async function watchAcceptingOrders<T>(tx: Tx, storeId: string, write: () => Promise<T>): Promise<T> {
  const before = await tx.stores.byId(storeId);
  const was = before ? await acceptingOrdersOf(tx, before) : false;
  const out = await write();
  const after = await tx.stores.byId(storeId);
  if (after && (await acceptingOrdersOf(tx, after)) !== was) {
    await tx.emit('store.updated', storeId, { store: await presentStore(tx.stores, after), changed: ['accepting_orders'] });
  }
  return out;
}

async function acceptingOrdersOf(tx: Tx, store: StoreRecord): Promise<boolean> {
  return store.switchOn && !store.suspended && (await tx.stores.hasActiveProduct(store.id));
}
