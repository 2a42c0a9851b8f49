import { ApiError } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import type { Product } from '../../src/contract/catalog.js';
import {
  panelProductInput, panelProductPatch, type PanelProductInput, type PanelProductPatch,
} from '../../src/contract/panel-catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import { watchAcceptingOrders } from '../stores/change-store.js';
import { requestImageFetch } from '../images/queue.js';
import type { CategoryRecord, ProductRecord } from './repository.js';
import { presentProductById } from './present.js';

/** The panel's category for products made without naming one. */
export const PANEL_DEFAULT_CATEGORY = 'Otros';

/**
 * A product made in the merchant's panel (DESIGN): a real catalog product with `external_id` null,
 * listed by GET /catalog/products and linkable with `link_to_id`. Its category is found by id, by
 * the integration's code or by name, and made (without code) when the name is new.
 *
 * @example
 * const promo = await createPanelProduct(env, storeId, { name: 'Promo 2x1', price: '30000' });
 */
export async function createPanelProduct(env: EnvContext, storeId: string, input: PanelProductInput): Promise<Product> {
  return env.store.tx((tx) => createPanelProductIn(env, tx, storeId, input));
}

/** The same, inside the caller's transaction (the order simulator makes one for `unmapped_product`). */
export async function createPanelProductIn(env: EnvContext, tx: Tx, storeId: string, input: PanelProductInput): Promise<Product> {
  const data = parseOrThrow(panelProductInput, input);
  if (!(await tx.stores.byId(storeId))) throw ApiError.of('not_found', undefined, 'No existe ese comercio.');
  const id = await watchAcceptingOrders(tx, storeId, async () => {
    const now = env.clock.now();
    const category = await panelCategory(env, tx, storeId, data, now);
    const id = env.ids.next('product');
    await tx.catalog.insertProduct({
      id, storeId, integrationId: null, externalId: null, categoryId: category.id, name: data.name,
      price: parseAmount(data.price), description: data.description ?? null, sku: null, active: data.active,
      available: data.available, position: null, photoUrl: data.photo_url ?? null,
      photoSource: data.photo_url ? 'panel' : null, imageStatus: data.photo_url ? 'ready' : 'none',
      imageRequestedUrl: null, imageError: null, sourceUpdatedAt: null, createdAt: now, updatedAt: now,
    });
    return id;
  });
  return (await presentProductById(tx.catalog, id))!;
}

async function panelCategory(
  env: EnvContext, tx: Tx, storeId: string, data: { category_id?: string; category_external_id?: string; category_name?: string }, now: number,
): Promise<CategoryRecord> {
  if (data.category_id !== undefined) {
    const row = await tx.catalog.categoryById(data.category_id);
    if (!row || row.storeId !== storeId) throw ApiError.field('category_id', 'not_found', 'No existe esa categoría en el comercio.');
    return row;
  }
  if (data.category_external_id !== undefined) {
    const code = data.category_external_id;
    for (const integration of await tx.integrations.byStore(storeId)) {
      const row = await tx.catalog.categoryByExternal(integration.id, code);
      if (row) return row;
    }
    throw ApiError.field('category_external_id', 'not_found', 'No existe una categoría con ese código en el comercio.');
  }
  const name = data.category_name ?? PANEL_DEFAULT_CATEGORY;
  const found = await tx.catalog.categoryByName(storeId, name);
  if (found) return found;
  const row: CategoryRecord = {
    id: env.ids.next('category'), storeId, integrationId: null, externalId: null, name, position: null, active: true,
    sourceUpdatedAt: null, createdAt: now, updatedAt: now,
  };
  await tx.catalog.insertCategory(row);
  return row;
}

/**
 * A panel edit. The photo may always change (a panel photo prevails over `image_url`; `photo_url:
 * null` clears it, and the integration's last `image_url` is downloaded again). Name, price and
 * states of a product linked to an `erp_managed` integration are locked in the panel (spec:
 * Integration settings) → 403 `field_not_managed`.
 */
export async function patchPanelProduct(env: EnvContext, productId: string, input: PanelProductPatch): Promise<Product> {
  const data = parseOrThrow(panelProductPatch, input);
  return env.store.tx(async (tx) => {
    const current = await tx.catalog.productById(productId);
    if (!current) throw ApiError.of('not_found', undefined, 'No existe ese producto.');
    await watchAcceptingOrders(tx, current.storeId, async () => {
      const row = (await tx.catalog.productById(productId))!;
      const next: ProductRecord = {
        ...row,
        name: data.name ?? row.name,
        price: data.price === undefined ? row.price : parseAmount(data.price),
        active: data.active ?? row.active,
        available: data.available ?? row.available,
      };
      const fieldsChanged = (['name', 'price', 'active', 'available'] as const).some((k) => next[k] !== row[k]);
      if (fieldsChanged && (await lockedByIntegration(tx, row))) {
        throw ApiError.of('field_not_managed', undefined, 'El producto lo gestiona el sistema externo (catalog_mode: erp_managed); en el panel solo se cambia la foto.');
      }
      const fetch = applyPanelPhoto(next, data.photo_url);
      const changed = fieldsChanged || (['photoUrl', 'photoSource', 'imageStatus', 'imageError'] as const).some((k) => next[k] !== row[k]);
      if (!changed) return;
      await tx.catalog.updateProduct({ ...next, updatedAt: env.clock.now() });
      if (fetch) requestImageFetch(env, tx, row.id, fetch);
    });
    return (await presentProductById(tx.catalog, productId))!;
  });
}

/** Sets or clears the panel photo on `next`; answers the integration's address to download again, if any. */
function applyPanelPhoto(next: ProductRecord, photoUrl: string | null | undefined): string | null {
  if (photoUrl === undefined) return null;
  if (photoUrl !== null) {
    Object.assign(next, { photoUrl, photoSource: 'panel', imageStatus: 'ready', imageError: null });
    return null;
  }
  if (next.photoSource !== 'panel') return null;
  const again = next.imageRequestedUrl;
  Object.assign(next, { photoUrl: null, photoSource: null, imageStatus: again ? 'pending' : 'none', imageError: null });
  return again;
}

async function lockedByIntegration(tx: Tx, row: ProductRecord): Promise<boolean> {
  if (row.integrationId === null || row.externalId === null) return false;
  return (await tx.integrations.byId(row.integrationId))?.settings.catalog_mode === 'erp_managed';
}
