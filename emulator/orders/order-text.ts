import type { EnvContext } from '../context.js';
import { ChangeCache } from '../store/sqlite/change-cache.js';
import type { Db } from '../store/sqlite/open.js';
import { JsonText } from '../http/json-text.js';
import { presentOrder } from './present.js';
import { loadOrder } from './service.js';

interface OrderText {
  storeId: string;
  text: string;
}

const caches = new WeakMap<Db, ChangeCache<OrderText>>();

function cacheOf(db: Db): ChangeCache<OrderText> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new ChangeCache(db)));
  return cache;
}

/**
 * GET /orders/{id}'s `{"data": order}` body as JSON text. Integrations poll it, so the text is kept
 * until the environment's database changes (see ChangeCache): a repeated read costs neither the
 * queries nor the presenting and serializing. Another store's order is not found, as in `loadOrder`.
 */
export function orderBodyText(env: EnvContext, orderId: string, storeId: string): JsonText {
  const cache = cacheOf(env.db);
  const kept = cache.get(orderId);
  if (kept && kept.storeId === storeId) return new JsonText(kept.text);
  const order = loadOrder(env, orderId, storeId);
  const entry = cache.set(orderId, { storeId: order.storeId, text: JSON.stringify({ data: presentOrder(env, order) }) });
  return new JsonText(entry.text);
}
