import type Database from 'better-sqlite3';
import type { Db } from '../store/sqlite/open.js';

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

export type ImageStatus = 'none' | 'pending' | 'ready' | 'rejected';
export type PhotoSource = 'integration' | 'panel';

export interface ProductRow {
  id: string;
  store_id: string;
  integration_id: string | null;
  external_id: string | null;
  category_id: string;
  name: string;
  /** Hundredths of PYG. */
  price: number;
  description: string | null;
  sku: string | null;
  active: number;
  available: number;
  position: number | null;
  /** The photo in use (its source address), whoever set it. */
  photo_url: string | null;
  photo_source: PhotoSource | null;
  image_status: ImageStatus;
  /** The last `image_url` the integration sent. */
  image_requested_url: string | null;
  image_error: string | null;
  source_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A product with its category's code, as lists and presenters read it. */
export interface ProductView extends ProductRow {
  category_external_id: string | null;
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
  /** Hundredths of PYG. */
  price: number;
  available: number;
  position: number;
}

/** One page of a list ordered by id: rows after `after` ('' for the first page). */
export interface PageParams {
  store_id: string;
  since: number;
  after: string;
  limit: number;
}

/** A page of products, filtered by category and active flag (null: no filter). */
export type ProductPageParams = PageParams & { category_id: string | null; active: number | null };

export const PRODUCT_VIEW = 'SELECT p.*, c.external_id AS category_external_id FROM products p JOIN categories c ON c.id = p.category_id';

export function createCatalogStatements(db: Db): CatalogStatements {
  return {
    // Categories
    categoryByExternal: db.prepare<[string, string], CategoryRow>('SELECT * FROM categories WHERE integration_id = ? AND external_id = ?'),
    categoryById: db.prepare<[string], CategoryRow>('SELECT * FROM categories WHERE id = ?'),
    categoryByName: db.prepare<[string, string], CategoryRow>('SELECT * FROM categories WHERE store_id = ? AND name = ? ORDER BY active DESC, id LIMIT 1'),
    insertCategory: db.prepare<CategoryRow>(
      `INSERT INTO categories (id, store_id, integration_id, external_id, name, position, active, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @name, @position, @active, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateCategory: db.prepare<Pick<CategoryRow, 'id' | 'name' | 'position' | 'active' | 'source_updated_at' | 'updated_at'>>(
      `UPDATE categories SET name = @name, position = @position, active = @active, source_updated_at = @source_updated_at,
         updated_at = @updated_at WHERE id = @id`,
    ),
    setCategorySourceUpdatedAt: db.prepare<[number, string]>('UPDATE categories SET source_updated_at = ? WHERE id = ?'),
    listCategories: db.prepare<PageParams, CategoryRow>(
      `SELECT * FROM categories WHERE store_id = @store_id AND updated_at >= @since AND id > @after ORDER BY id LIMIT @limit`,
    ),
    activeProductsInCategory: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM products WHERE category_id = ? AND active = 1'),
    linkedCategories: db.prepare<[string], CategoryRow>('SELECT * FROM categories WHERE integration_id = ? AND external_id IS NOT NULL'),

    // Products
    productByExternal: db.prepare<[string, string], ProductRow>('SELECT * FROM products WHERE integration_id = ? AND external_id = ?'),
    productById: db.prepare<[string], ProductRow>('SELECT * FROM products WHERE id = ?'),
    productViewById: db.prepare<[string], ProductView>(`${PRODUCT_VIEW} WHERE p.id = ?`),
    insertProduct: db.prepare<ProductRow>(
      `INSERT INTO products (id, store_id, integration_id, external_id, category_id, name, price, description, sku, active, available,
         position, photo_url, photo_source, image_status, image_requested_url, image_error, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @category_id, @name, @price, @description, @sku, @active, @available,
         @position, @photo_url, @photo_source, @image_status, @image_requested_url, @image_error, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateProduct: db.prepare<Omit<ProductRow, 'store_id' | 'created_at'>>(
      `UPDATE products SET integration_id = @integration_id, external_id = @external_id, category_id = @category_id, name = @name,
         price = @price, description = @description, sku = @sku, active = @active, available = @available, position = @position,
         photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_requested_url = @image_requested_url, image_error = @image_error,
         source_updated_at = @source_updated_at, updated_at = @updated_at WHERE id = @id`,
    ),
    setProductSourceUpdatedAt: db.prepare<[number, string]>('UPDATE products SET source_updated_at = ? WHERE id = ?'),
    linkedProducts: db.prepare<[string], ProductRow>('SELECT * FROM products WHERE integration_id = ? AND external_id IS NOT NULL'),
    activeProductCount: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM products WHERE store_id = ? AND active = 1'),
    touchProduct: db.prepare<[number, string]>('UPDATE products SET updated_at = ? WHERE id = ?'),
    setImage: db.prepare<Pick<ProductRow, 'id' | 'photo_url' | 'photo_source' | 'image_status' | 'image_requested_url' | 'image_error' | 'updated_at'>>(
      `UPDATE products SET photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_requested_url = @image_requested_url, image_error = @image_error, updated_at = @updated_at WHERE id = @id`,
    ),

    // Option groups and options
    groupsOfProduct: db.prepare<[string], OptionGroupRow>('SELECT * FROM option_groups WHERE product_id = ? ORDER BY position, id'),
    optionsOfProduct: db.prepare<[string], OptionRow>('SELECT * FROM options WHERE product_id = ? ORDER BY position, id'),
    /** `ids` is a JSON array of product ids: one query for a whole page. */
    groupsOfProducts: db.prepare<{ ids: string }, OptionGroupRow>(
      'SELECT * FROM option_groups WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id',
    ),
    optionsOfProducts: db.prepare<{ ids: string }, OptionRow>(
      'SELECT * FROM options WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id',
    ),
    groupByExternal: db.prepare<[string, string], OptionGroupRow>('SELECT * FROM option_groups WHERE integration_id = ? AND external_id = ?'),
    optionByExternal: db.prepare<[string, string], OptionRow>('SELECT * FROM options WHERE integration_id = ? AND external_id = ?'),
    optionById: db.prepare<[string], OptionRow>('SELECT * FROM options WHERE id = ?'),
    insertGroup: db.prepare<OptionGroupRow>(
      `INSERT INTO option_groups (id, product_id, integration_id, external_id, name, min_select, max_select, position)
       VALUES (@id, @product_id, @integration_id, @external_id, @name, @min_select, @max_select, @position)`,
    ),
    updateGroup: db.prepare<Pick<OptionGroupRow, 'id' | 'name' | 'min_select' | 'max_select' | 'position'>>(
      'UPDATE option_groups SET name = @name, min_select = @min_select, max_select = @max_select, position = @position WHERE id = @id',
    ),
    deleteGroup: db.prepare<[string]>('DELETE FROM option_groups WHERE id = ?'),
    insertOption: db.prepare<OptionRow>(
      `INSERT INTO options (id, group_id, product_id, integration_id, external_id, name, price, available, position)
       VALUES (@id, @group_id, @product_id, @integration_id, @external_id, @name, @price, @available, @position)`,
    ),
    updateOption: db.prepare<Pick<OptionRow, 'id' | 'group_id' | 'name' | 'price' | 'available' | 'position'>>(
      'UPDATE options SET group_id = @group_id, name = @name, price = @price, available = @available, position = @position WHERE id = @id',
    ),
    patchOption: db.prepare<Pick<OptionRow, 'id' | 'price' | 'available'>>('UPDATE options SET price = @price, available = @available WHERE id = @id'),
    deleteOption: db.prepare<[string]>('DELETE FROM options WHERE id = ?'),
  };
}
/**
 * Written out (not `ReturnType`) so that the declaration emit of `npm run build` can name them:
 * better-sqlite3's own statement type lives in a namespace its types do not export.
 */
export interface CatalogStatements {
  categoryByExternal: Database.Statement<[string, string], CategoryRow>;
  categoryById: Database.Statement<[string], CategoryRow>;
  categoryByName: Database.Statement<[string, string], CategoryRow>;
  insertCategory: Database.Statement<[CategoryRow], unknown>;
  updateCategory: Database.Statement<[Pick<CategoryRow, "id" | "name" | "position" | "active" | "source_updated_at" | "updated_at">], unknown>;
  setCategorySourceUpdatedAt: Database.Statement<[number, string], unknown>;
  listCategories: Database.Statement<[PageParams], CategoryRow>;
  activeProductsInCategory: Database.Statement<[string], { n: number; }>;
  linkedCategories: Database.Statement<[string], CategoryRow>;
  productByExternal: Database.Statement<[string, string], ProductRow>;
  productById: Database.Statement<[string], ProductRow>;
  productViewById: Database.Statement<[string], ProductView>;
  insertProduct: Database.Statement<[ProductRow], unknown>;
  updateProduct: Database.Statement<[Omit<ProductRow, "store_id" | "created_at">], unknown>;
  setProductSourceUpdatedAt: Database.Statement<[number, string], unknown>;
  linkedProducts: Database.Statement<[string], ProductRow>;
  activeProductCount: Database.Statement<[string], { n: number; }>;
  touchProduct: Database.Statement<[number, string], unknown>;
  setImage: Database.Statement<[Pick<ProductRow, "id" | "updated_at" | "photo_url" | "photo_source" | "image_status" | "image_requested_url" | "image_error">], unknown>;
  groupsOfProduct: Database.Statement<[string], OptionGroupRow>;
  optionsOfProduct: Database.Statement<[string], OptionRow>;
  groupsOfProducts: Database.Statement<[{ ids: string; }], OptionGroupRow>;
  optionsOfProducts: Database.Statement<[{ ids: string; }], OptionRow>;
  groupByExternal: Database.Statement<[string, string], OptionGroupRow>;
  optionByExternal: Database.Statement<[string, string], OptionRow>;
  optionById: Database.Statement<[string], OptionRow>;
  insertGroup: Database.Statement<[OptionGroupRow], unknown>;
  updateGroup: Database.Statement<[Pick<OptionGroupRow, "id" | "name" | "position" | "min_select" | "max_select">], unknown>;
  deleteGroup: Database.Statement<[string], unknown>;
  insertOption: Database.Statement<[OptionRow], unknown>;
  updateOption: Database.Statement<[Pick<OptionRow, "id" | "name" | "position" | "price" | "available" | "group_id">], unknown>;
  patchOption: Database.Statement<[Pick<OptionRow, "id" | "price" | "available">], unknown>;
  deleteOption: Database.Statement<[string], unknown>;
}
