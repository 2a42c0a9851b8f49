import { ApiError } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import type { Product } from '../../src/contract/catalog.js';
import {
  panelProductInput, panelProductPatch, type PanelProductInput, type PanelProductPatch,
} from '../../src/contract/panel-catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { CategoryRow, ProductRow } from '../data/catalog.js';
import { requestImageFetch } from '../images/queue.js';
import { presentProduct } from '../present/catalog.js';
import { watchAcceptingOrders } from './store-watch.js';

/** The panel's category for products made without naming one. */
export const PANEL_DEFAULT_CATEGORY = 'Otros';

/**
 * A product made in the merchant's panel (DESIGN): a real catalog product with `external_id` null,
 * listed by GET /catalog/products and linkable with `link_to_id`. Its category is found by id, by
 * the integration's code or by name, and made (without code) when the name is new.
 *
 * @example
 * const promo = createPanelProduct(env, storeId, { name: 'Promo 2x1', price: '30000' });
 */
export function createPanelProduct(env: EnvContext, storeId: string, input: PanelProductInput): Product {
  const data = parseOrThrow(panelProductInput, input);
  if (!env.stores.byId(storeId)) throw ApiError.of('not_found', undefined, 'No existe ese comercio.');
  const id = watchAcceptingOrders(env, storeId, () => {
    const now = env.clock.now();
    const category = panelCategory(env, storeId, data, now);
    const id = env.ids.next('product');
    env.catalog.insertProduct.run({
      id, store_id: storeId, integration_id: null, external_id: null, category_id: category.id, name: data.name,
      price: parseAmount(data.price), description: data.description ?? null, sku: null, active: data.active ? 1 : 0,
      available: data.available ? 1 : 0, position: null, photo_url: data.photo_url ?? null,
      photo_source: data.photo_url ? 'panel' : null, image_status: data.photo_url ? 'ready' : 'none',
      image_requested_url: null, image_error: null, source_updated_at: null, created_at: now, updated_at: now,
    });
    return id;
  });
  return presentProduct(env, id)!;
}

function panelCategory(
  env: EnvContext, storeId: string, data: { category_id?: string; category_external_id?: string; category_name?: string }, now: number,
): CategoryRow {
  if (data.category_id !== undefined) {
    const row = env.catalog.categoryById.get(data.category_id);
    if (!row || row.store_id !== storeId) throw ApiError.field('category_id', 'not_found', 'No existe esa categoría en el comercio.');
    return row;
  }
  if (data.category_external_id !== undefined) {
    const code = data.category_external_id;
    const row = env.integrations.byStore(storeId).map((i) => env.catalog.categoryByExternal.get(i.id, code)).find((r) => r !== undefined);
    if (!row) throw ApiError.field('category_external_id', 'not_found', 'No existe una categoría con ese código en el comercio.');
    return row;
  }
  const name = data.category_name ?? PANEL_DEFAULT_CATEGORY;
  const found = env.catalog.categoryByName.get(storeId, name);
  if (found) return found;
  const row: CategoryRow = {
    id: env.ids.next('category'), store_id: storeId, integration_id: null, external_id: null, name, position: null, active: 1,
    source_updated_at: null, created_at: now, updated_at: now,
  };
  env.catalog.insertCategory.run(row);
  return row;
}

/**
 * A panel edit. The photo may always change (a panel photo prevails over `image_url`; `photo_url:
 * null` clears it, and the integration's last `image_url` is downloaded again). Name, price and
 * states of a product linked to an `erp_managed` integration are locked in the panel (spec:
 * Integration settings) → 403 `field_not_managed`.
 */
export function patchPanelProduct(env: EnvContext, productId: string, input: PanelProductPatch): Product {
  const data = parseOrThrow(panelProductPatch, input);
  const current = env.catalog.productById.get(productId);
  if (!current) throw ApiError.of('not_found', undefined, 'No existe ese producto.');
  watchAcceptingOrders(env, current.store_id, () => {
    const row = env.catalog.productById.get(productId)!;
    const next: ProductRow = {
      ...row,
      name: data.name ?? row.name,
      price: data.price === undefined ? row.price : parseAmount(data.price),
      active: data.active === undefined ? row.active : Number(data.active),
      available: data.available === undefined ? row.available : Number(data.available),
    };
    const fieldsChanged = (['name', 'price', 'active', 'available'] as const).some((k) => next[k] !== row[k]);
    if (fieldsChanged && lockedByIntegration(env, row)) {
      throw ApiError.of('field_not_managed', undefined, 'El producto lo gestiona el sistema externo (catalog_mode: erp_managed); en el panel solo se cambia la foto.');
    }
    const fetch = applyPanelPhoto(next, data.photo_url);
    const changed = fieldsChanged || (['photo_url', 'photo_source', 'image_status', 'image_error'] as const).some((k) => next[k] !== row[k]);
    if (!changed) return;
    env.catalog.updateProduct.run({ ...next, updated_at: env.clock.now() });
    if (fetch) requestImageFetch(env, row.id, fetch);
  });
  return presentProduct(env, productId)!;
}

/** Sets or clears the panel photo on `next`; answers the integration's address to download again, if any. */
function applyPanelPhoto(next: ProductRow, photoUrl: string | null | undefined): string | null {
  if (photoUrl === undefined) return null;
  if (photoUrl !== null) {
    Object.assign(next, { photo_url: photoUrl, photo_source: 'panel', image_status: 'ready', image_error: null });
    return null;
  }
  if (next.photo_source !== 'panel') return null;
  const again = next.image_requested_url;
  Object.assign(next, { photo_url: null, photo_source: null, image_status: again ? 'pending' : 'none', image_error: null });
  return again;
}

function lockedByIntegration(env: EnvContext, row: ProductRow): boolean {
  if (row.integration_id === null || row.external_id === null) return false;
  return env.integrations.byId(row.integration_id)?.settings.catalog_mode === 'erp_managed';
}
