import type { Db } from '../db/open.js';

export interface CategoryRow {
  id: string;
  store_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  position: number | null;
  active: number;
  source_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ProductRow {
  id: string;
  store_id: string;
  integration_id: string | null;
  external_id: string | null;
  category_id: string;
  name: string;
  price: number;
  description: string | null;
  sku: string | null;
  active: number;
  available: number;
  position: number | null;
  photo_url: string | null;
  photo_source: string | null;
  image_status: string;
  image_requested_url: string | null;
  image_error: string | null;
  source_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface OptionGroupRow {
  id: string;
  product_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  min_select: number;
  max_select: number;
  position: number;
}

export interface OptionRow {
  id: string;
  group_id: string;
  product_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  price: number;
  available: number;
  position: number;
}

/** One page of a list: rows after the cursor, ordered by (updated_at, id) or (position, id). */
export interface PageArgs {
  storeId: string;
  afterKey: string | null;
  limit: number;
}

export function createCatalogStatements(db: Db) {
  const s = {
    categoryByExternal: db.prepare<[string, string], CategoryRow>('SELECT * FROM categories WHERE integration_id = ? AND external_id = ?'),
    categoryById: db.prepare<[string], CategoryRow>('SELECT * FROM categories WHERE id = ?'),
    insertCategory: db.prepare(
      `INSERT INTO categories (id, store_id, integration_id, external_id, name, position, active, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @name, @position, @active, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateCategory: db.prepare(
      `UPDATE categories SET name = @name, position = @position, active = @active, source_updated_at = @source_updated_at,
         updated_at = @updated_at WHERE id = @id`,
    ),
    listCategories: db.prepare<{ store_id: string; since: number; after: string; limit: number }, CategoryRow>(
      `SELECT * FROM categories WHERE store_id = @store_id AND updated_at >= @since AND id > @after ORDER BY id LIMIT @limit`,
    ),
    activeProductsInCategory: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM products WHERE category_id = ? AND active = 1'),
    linkedCategories: db.prepare<[string], CategoryRow>('SELECT * FROM categories WHERE integration_id = ? AND external_id IS NOT NULL'),

    productByExternal: db.prepare<[string, string], ProductRow>('SELECT * FROM products WHERE integration_id = ? AND external_id = ?'),
    productById: db.prepare<[string], ProductRow>('SELECT * FROM products WHERE id = ?'),
    insertProduct: db.prepare(
      `INSERT INTO products (id, store_id, integration_id, external_id, category_id, name, price, description, sku, active, available,
         position, photo_url, photo_source, image_status, image_requested_url, image_error, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @category_id, @name, @price, @description, @sku, @active, @available,
         @position, @photo_url, @photo_source, @image_status, @image_requested_url, @image_error, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateProduct: db.prepare(
      `UPDATE products SET integration_id = @integration_id, external_id = @external_id, category_id = @category_id, name = @name,
         price = @price, description = @description, sku = @sku, active = @active, available = @available, position = @position,
         photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_requested_url = @image_requested_url, image_error = @image_error,
         source_updated_at = @source_updated_at, updated_at = @updated_at WHERE id = @id`,
    ),
    listProducts: db.prepare<
      { store_id: string; since: number; after: string; limit: number; category_id: string | null; active: number | null },
      ProductRow
    >(
      `SELECT * FROM products WHERE store_id = @store_id AND updated_at >= @since AND id > @after
         AND (@category_id IS NULL OR category_id = @category_id) AND (@active IS NULL OR active = @active)
       ORDER BY id LIMIT @limit`,
    ),
    linkedProducts: db.prepare<[string], ProductRow>('SELECT * FROM products WHERE integration_id = ? AND external_id IS NOT NULL'),
    activeProductCount: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM products WHERE store_id = ? AND active = 1'),

    groupsOfProduct: db.prepare<[string], OptionGroupRow>('SELECT * FROM option_groups WHERE product_id = ? ORDER BY position, id'),
    optionsOfProduct: db.prepare<[string], OptionRow>('SELECT * FROM options WHERE product_id = ? ORDER BY position, id'),
    groupByExternal: db.prepare<[string, string], OptionGroupRow>('SELECT * FROM option_groups WHERE integration_id = ? AND external_id = ?'),
    optionByExternal: db.prepare<[string, string], OptionRow>('SELECT * FROM options WHERE integration_id = ? AND external_id = ?'),
    optionById: db.prepare<[string], OptionRow>('SELECT * FROM options WHERE id = ?'),
    insertGroup: db.prepare(
      `INSERT INTO option_groups (id, product_id, integration_id, external_id, name, min_select, max_select, position)
       VALUES (@id, @product_id, @integration_id, @external_id, @name, @min_select, @max_select, @position)`,
    ),
    updateGroup: db.prepare(
      'UPDATE option_groups SET name = @name, min_select = @min_select, max_select = @max_select, position = @position WHERE id = @id',
    ),
    deleteGroup: db.prepare('DELETE FROM option_groups WHERE id = ?'),
    insertOption: db.prepare(
      `INSERT INTO options (id, group_id, product_id, integration_id, external_id, name, price, available, position)
       VALUES (@id, @group_id, @product_id, @integration_id, @external_id, @name, @price, @available, @position)`,
    ),
    updateOption: db.prepare(
      'UPDATE options SET group_id = @group_id, name = @name, price = @price, available = @available, position = @position WHERE id = @id',
    ),
    patchOption: db.prepare('UPDATE options SET price = @price, available = @available WHERE id = @id'),
    deleteOption: db.prepare('DELETE FROM options WHERE id = ?'),
    touchProduct: db.prepare('UPDATE products SET updated_at = ? WHERE id = ?'),
    setImage: db.prepare(
      `UPDATE products SET photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_error = @image_error, updated_at = @updated_at WHERE id = @id`,
    ),
  };
  return s;
}
export type CatalogStatements = ReturnType<typeof createCatalogStatements>;
