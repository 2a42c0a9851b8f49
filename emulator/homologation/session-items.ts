import type { EnvContext } from '../context.js';
import type { SimulatedItem } from '../../src/contract/orders.js';

/** How many orderable products are looked at for one of the ERP's own (a store's first ones are usually its). */
const LOOKED_AT = 200;

/**
 * DESIGN: Session orders carry only the ERP's products — one item of a product the integration
 * published (with its code), active and available in an active category, with the options its
 * required groups need (the first available ones), so that no order turns into an import failure
 * by chance and none carries the session's own product without a code. null when the store has
 * no such product (the session then waits: publish your catalog first).
 */
export async function erpItem(env: EnvContext, storeId: string, integrationId: string): Promise<SimulatedItem | null> {
  const ids = (await env.store.orders.orderableProductIds(storeId)).slice(0, LOOKED_AT);
  let fallback: SimulatedItem | null = null;
  for (const id of ids) {
    const product = await env.store.catalog.productById(id);
    if (!product || product.externalId === null) continue;
    const item = await withRequiredOptions(env, id);
    if (!item) continue;
    if (product.integrationId === integrationId) return item;
    // Another integration's coded product of the same store: imported by code too, used only if the ERP has none.
    fallback ??= item;
  }
  return fallback;
}

/** The product as one item with the first available options of each required group; null when a group cannot be filled. */
async function withRequiredOptions(env: EnvContext, productId: string): Promise<SimulatedItem | null> {
  const groups = (await env.store.catalog.groupsOfProducts([productId])).filter((g) => g.minSelect > 0);
  if (groups.length === 0) return { product_id: productId, quantity: 1, options: [] };
  const options = (await env.store.catalog.optionsOfProducts([productId])).filter((o) => o.available);
  const chosen: SimulatedItem['options'] = [];
  for (const g of groups) {
    const mine = options.filter((o) => o.groupId === g.id).sort((a, b) => a.position - b.position);
    if (mine.length === 0) return null;
    // min_select in option units: the first option as many times as needed, within max_select.
    if (g.minSelect > g.maxSelect) return null;
    chosen.push({ option_id: mine[0]!.id, quantity: g.minSelect });
  }
  return { product_id: productId, quantity: 1, options: chosen };
}
