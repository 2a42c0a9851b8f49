import type { Migration } from './index.js';

// GET /catalog/products reads a page of product rowids in id order, filtered by update time,
// category and active: this index holds every column it reads, so the page never touches the table
// (product-page.ts). It replaces products_store(store_id, id), which it extends.
export const productsPageIndex: Migration = {
  version: 6,
  name: 'products-page-index',
  up: `
    CREATE INDEX products_page ON products(store_id, id, updated_at, category_id, active);
    DROP INDEX products_store;
  `,
};
