import type { MerchantClient } from '../../../../client/index.js';
import type { Category, Product } from '../../../../contract/catalog.js';
import { LIMITS } from '../../../../contract/limits.js';

/** What a sync needs to know of the target store. */
export interface StoreState {
  storeId: string;
  storeName: string;
  integrationId: string;
  environment: string;
  missingItemsPolicy: 'keep' | 'deactivate';
  catalogMode: string;
  categories: Category[];
  /** Null when not read (a real full snapshot does not need them). */
  products: Product[] | null;
}

/** GET /me, every category page and (unless told not to) every product page, 200 at a time. */
export async function readStore(client: MerchantClient, options: { products: boolean }): Promise<StoreState> {
  const me = await client.me();
  const settings = me.integration.settings as { missing_items_policy?: string; catalog_mode?: string };
  const categories = await client.catalog.categories.list({ limit: LIMITS.pageSizeMax }).all();
  const products = options.products ? await client.catalog.products.list({ limit: LIMITS.pageSizeMax }).all() : null;
  return {
    storeId: me.store.id,
    storeName: me.store.name,
    integrationId: me.integration.id,
    environment: me.integration.environment,
    missingItemsPolicy: settings.missing_items_policy === 'deactivate' ? 'deactivate' : 'keep',
    catalogMode: settings.catalog_mode ?? 'manual',
    categories,
    products,
  };
}
