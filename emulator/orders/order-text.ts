import type { EnvContext } from '../context.js';
import { JsonText } from '../http/json-text.js';
import { presentOrder, presentOrderWith } from './present.js';
import { orderWithHistory } from './repository.js';
import { loadOrder } from './commands.js';
import type { Prefetch } from '../http/auth.js';

interface OrderText {
  storeId: string;
  text: string;
}

/** About this many order bodies kept per environment; past that, all are dropped and read again. */
const MAX_KEPT = 10_000;

/**
 * GET /orders/{id}'s `{"data": order}` body as JSON text, kept per order until the storage reports a
 * write to that order (or a reset): integrations poll it, so a repeated read costs neither the reads
 * nor the presenting and serializing. Kept only where changes are reported before any later read
 * (one process on the embedded database).
 */
class OrderTexts {
  private readonly entries = new Map<string, OrderText>();

  constructor(private readonly env: EnvContext) {
    env.changes.on('orders', (change) => {
      if (change.environment === env.name) this.entries.delete(change.orderId);
    });
    env.changes.on('reset', () => this.entries.clear());
  }

  get(orderId: string): OrderText | undefined {
    return this.entries.get(orderId);
  }

  /** The version to hand back to `set`: a text read before a write to an order, or a reset, is not kept. */
  ticket(): number {
    // Both counters only grow: their sum moves when either does.
    return this.env.changes.version('orders') + this.env.changes.version('reset');
  }

  set(orderId: string, entry: OrderText, ticket: number): void {
    if (!this.env.changes.exact || ticket !== this.ticket()) return;
    if (this.entries.size >= MAX_KEPT) this.entries.clear();
    this.entries.set(orderId, entry);
  }
}

const caches = new WeakMap<EnvContext, OrderTexts>();

/**
 * The body's text of an order as a request's admission read it (a server database): an admission
 * hands out the very same object while the order is unchanged in the database (the adapter keeps it
 * under the order's stamp, issue 25), so its text is kept with it and a repeated read presents nothing.
 */
const prefetchedTexts = new WeakMap<object, string>();

function textsOf(env: EnvContext): OrderTexts {
  let cache = caches.get(env);
  if (!cache) caches.set(env, (cache = new OrderTexts(env)));
  return cache;
}

/** Another store's order is not found, as in `loadOrder`. A kept text answers at once (no promise). */
export function orderBodyText(env: EnvContext, orderId: string, storeId: string, prefetch: Prefetch | null = null): JsonText | Promise<JsonText> {
  const cache = textsOf(env);
  const kept = cache.get(orderId);
  if (kept && kept.storeId === storeId) return new JsonText(kept.text);
  return readOrderText(env, cache, orderId, storeId, prefetch);
}

/** `prefetch`: the order as the request's admission read it (a server database), instead of a read of its own. */
async function readOrderText(env: EnvContext, cache: OrderTexts, orderId: string, storeId: string, prefetch: Prefetch | null): Promise<JsonText> {
  const ticket = cache.ticket();
  const found = prefetch && (prefetch.order === undefined || prefetch.order.order.id === orderId) ? prefetch.order : await orderWithHistory(env.store.orders, orderId);
  if (!found || found.order.storeId !== storeId) {
    // Not found, answered as loadOrder answers it; an order written since is read the usual way (not kept).
    const order = await loadOrder(env.store, orderId, storeId);
    return new JsonText(JSON.stringify({ data: await presentOrder(env.store.orders, order) }));
  }
  const { order, history } = found;
  const prefetched = found === prefetch?.order;
  let text = prefetched ? prefetchedTexts.get(found) : undefined;
  if (text === undefined) {
    text = JSON.stringify({ data: presentOrderWith(order, history) });
    if (prefetched) prefetchedTexts.set(found, text);
  }
  cache.set(orderId, { storeId: order.storeId, text }, ticket);
  return new JsonText(text);
}
