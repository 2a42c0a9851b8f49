import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';
import type { CategoryRow, GroupRow, LinkedRow, OptionRow, ProductRow } from './catalog-rows.js';
import { prepareLazily } from './lazy-statement.js';

// The catalog's statements (categories, products, option groups, options), apart from the methods
// that run them (catalog.ts), as the PostgreSQL adapter's catalogSql.

/**
 * The statements' types, written out: a declaration cannot name the type better-sqlite3 infers (it
 * lives in a namespace its types do not export).
 */
export interface CatalogStatements {
  categoryByExternal: Statement<[string, string], CategoryRow>;
  categoryById: Statement<[string], CategoryRow>;
  categoryByName: Statement<[string, string], CategoryRow>;
  insertCategory: Statement;
  updateCategory: Statement;
  setCategorySourceUpdatedAt: Statement<[number, string]>;
  listCategories: Statement<{ store_id: string; since: number; after: string; limit: number }, CategoryRow>;
  activeProductsInCategory: Statement<[string], number>;
  linkedCategories: Statement<[string], LinkedRow>;
  productByExternal: Statement<[string, string], ProductRow>;
  productById: Statement<[string], ProductRow>;
  productViewById: Statement<[string], ProductRow & { category_external_id: string | null }>;
  insertProduct: Statement;
  updateProduct: Statement;
  setProductSourceUpdatedAt: Statement<[number, string]>;
  linkedProducts: Statement<[string], LinkedRow>;
  touchProduct: Statement<[number, string]>;
  setImage: Statement;
  groupsOfProducts: Statement<{ ids: string }, GroupRow>;
  optionsOfProducts: Statement<{ ids: string }, OptionRow>;
  groupsOfProduct: Statement<[string], GroupRow>;
  optionsOfProduct: Statement<[string], OptionRow>;
  groupByExternal: Statement<[string, string], GroupRow>;
  optionByExternal: Statement<[string, string], OptionRow>;
  optionById: Statement<[string], OptionRow>;
  insertGroup: Statement;
  updateGroup: Statement;
  deleteGroup: Statement<[string]>;
  insertOption: Statement;
  updateOption: Statement;
  patchOption: Statement;
  deleteOption: Statement<[string]>;
  firstPublished: Statement<{ store_id: string; integration_id: string }, { externalId: string; name: string }>;
  importable: Statement<{ store_id: string; integration_id: string }, string>;
}

export function catalogStatements(db: Db): CatalogStatements {
  return {
    categoryByExternal: prepareLazily<[string, string], CategoryRow>(db, 'SELECT * FROM categories WHERE integration_id = ? AND external_id = ?'),
    categoryById: prepareLazily<[string], CategoryRow>(db, 'SELECT * FROM categories WHERE id = ?'),
    categoryByName: prepareLazily<[string, string], CategoryRow>(db, 'SELECT * FROM categories WHERE store_id = ? AND name = ? ORDER BY active DESC, id LIMIT 1'),
    insertCategory: prepareLazily(db,
      `INSERT INTO categories (id, store_id, integration_id, external_id, name, position, active, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @name, @position, @active, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateCategory: prepareLazily(db,
      `UPDATE categories SET name = @name, position = @position, active = @active, source_updated_at = @source_updated_at,
         updated_at = @updated_at WHERE id = @id`,
    ),
    setCategorySourceUpdatedAt: prepareLazily<[number, string]>(db, 'UPDATE categories SET source_updated_at = ? WHERE id = ?'),
    listCategories: prepareLazily<{ store_id: string; since: number; after: string; limit: number }, CategoryRow>(db,
      'SELECT * FROM categories WHERE store_id = @store_id AND updated_at >= @since AND id > @after ORDER BY id LIMIT @limit',
    ),
    activeProductsInCategory: prepareLazily<[string], number>(db, 'SELECT COUNT(*) FROM products WHERE category_id = ? AND active = 1').pluck(),
    // What the missing-items policy looks at: the integration's linked items, active or not.
    linkedCategories: prepareLazily<[string], LinkedRow>(db,
      'SELECT id, external_id, active FROM categories WHERE integration_id = ? AND external_id IS NOT NULL ORDER BY id',
    ),
    productByExternal: prepareLazily<[string, string], ProductRow>(db, 'SELECT * FROM products WHERE integration_id = ? AND external_id = ?'),
    productById: prepareLazily<[string], ProductRow>(db, 'SELECT * FROM products WHERE id = ?'),
    productViewById: prepareLazily<[string], ProductRow & { category_external_id: string | null }>(db,
      'SELECT p.*, c.external_id AS category_external_id FROM products p JOIN categories c ON c.id = p.category_id WHERE p.id = ?',
    ),
    insertProduct: prepareLazily(db,
      `INSERT INTO products (id, store_id, integration_id, external_id, category_id, name, price, description, sku, active, available,
         position, photo_url, photo_source, image_status, image_requested_url, image_error, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @category_id, @name, @price, @description, @sku, @active, @available,
         @position, @photo_url, @photo_source, @image_status, @image_requested_url, @image_error, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateProduct: prepareLazily(db,
      `UPDATE products SET integration_id = @integration_id, external_id = @external_id, category_id = @category_id, name = @name,
         price = @price, description = @description, sku = @sku, active = @active, available = @available, position = @position,
         photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_requested_url = @image_requested_url, image_error = @image_error,
         source_updated_at = @source_updated_at, updated_at = @updated_at WHERE id = @id`,
    ),
    setProductSourceUpdatedAt: prepareLazily<[number, string]>(db, 'UPDATE products SET source_updated_at = ? WHERE id = ?'),
    linkedProducts: prepareLazily<[string], LinkedRow>(db,
      'SELECT id, external_id, active FROM products WHERE integration_id = ? AND external_id IS NOT NULL ORDER BY id',
    ),
    touchProduct: prepareLazily<[number, string]>(db, 'UPDATE products SET updated_at = ? WHERE id = ?'),
    setImage: prepareLazily(db,
      `UPDATE products SET photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_requested_url = @image_requested_url, image_error = @image_error, updated_at = @updated_at WHERE id = @id`,
    ),
    /** `ids` is a JSON array of product ids: one query for a whole page. */
    groupsOfProducts: prepareLazily<{ ids: string }, GroupRow>(db,
      'SELECT * FROM option_groups WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id',
    ),
    optionsOfProducts: prepareLazily<{ ids: string }, OptionRow>(db,
      'SELECT * FROM options WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id',
    ),
    groupsOfProduct: prepareLazily<[string], GroupRow>(db, 'SELECT * FROM option_groups WHERE product_id = ? ORDER BY position, id'),
    optionsOfProduct: prepareLazily<[string], OptionRow>(db, 'SELECT * FROM options WHERE product_id = ? ORDER BY position, id'),
    groupByExternal: prepareLazily<[string, string], GroupRow>(db, 'SELECT * FROM option_groups WHERE integration_id = ? AND external_id = ?'),
    optionByExternal: prepareLazily<[string, string], OptionRow>(db, 'SELECT * FROM options WHERE integration_id = ? AND external_id = ?'),
    optionById: prepareLazily<[string], OptionRow>(db, 'SELECT * FROM options WHERE id = ?'),
    insertGroup: prepareLazily(db,
      `INSERT INTO option_groups (id, product_id, integration_id, external_id, name, min_select, max_select, position)
       VALUES (@id, @product_id, @integration_id, @external_id, @name, @min_select, @max_select, @position)`,
    ),
    updateGroup: prepareLazily(db, 'UPDATE option_groups SET name = @name, min_select = @min_select, max_select = @max_select, position = @position WHERE id = @id'),
    deleteGroup: prepareLazily<[string]>(db, 'DELETE FROM option_groups WHERE id = ?'),
    insertOption: prepareLazily(db,
      `INSERT INTO options (id, group_id, product_id, integration_id, external_id, name, price, available, position)
       VALUES (@id, @group_id, @product_id, @integration_id, @external_id, @name, @price, @available, @position)`,
    ),
    updateOption: prepareLazily(db, 'UPDATE options SET group_id = @group_id, name = @name, price = @price, available = @available, position = @position WHERE id = @id'),
    patchOption: prepareLazily(db, 'UPDATE options SET price = @price, available = @available WHERE id = @id'),
    deleteOption: prepareLazily<[string]>(db, 'DELETE FROM options WHERE id = ?'),
    firstPublished: prepareLazily<{ store_id: string; integration_id: string }, { externalId: string; name: string }>(db,
      `SELECT external_id AS externalId, name FROM products
       WHERE store_id = @store_id AND integration_id = @integration_id AND external_id IS NOT NULL AND active = 1 AND available = 1
       ORDER BY created_at, rowid LIMIT 1`,
    ),
    importable: prepareLazily<{ store_id: string; integration_id: string }, string>(db,
      `SELECT p.id FROM products p JOIN categories c ON c.id = p.category_id
       WHERE p.store_id = @store_id AND p.external_id IS NOT NULL AND p.active = 1 AND p.available = 1 AND c.active = 1
         AND NOT EXISTS (SELECT 1 FROM option_groups g WHERE g.product_id = p.id AND g.min_select > 0)
       ORDER BY p.integration_id IS NOT @integration_id, p.created_at, p.rowid LIMIT 1`,
    ).pluck(),
  };
}
