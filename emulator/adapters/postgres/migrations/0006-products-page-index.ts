import type { PgMigration } from './index.js';

// GET /catalog/products reads a page of products in id order, filtered by update time, category and
// active (product-page.ts): this index serves the filter and the order. It replaces products_store.
export const productsPageIndex: PgMigration = {
  version: 6,
  name: 'products-page-index',
  env: `
    CREATE INDEX products_page ON products(store_id, id, updated_at, category_id, active);
    DROP INDEX products_store;
  `,
};
