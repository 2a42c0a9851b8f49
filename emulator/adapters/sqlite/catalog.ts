import type { Db } from './open.js';
import type {
  CatalogRepository, CategoryRecord, ImageStatus, LinkedItem, OptionGroupRecord, OptionRecord, PhotoSource, ProductRecord, ProductView,
} from '../../catalog/repository.js';
import { productPageReader } from './product-page.js';

// The catalog's tables: categories, products, option groups, options.

interface CategoryRow {
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

interface ProductRow {
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
  photo_source: PhotoSource | null;
  image_status: ImageStatus;
  image_requested_url: string | null;
  image_error: string | null;
  source_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

interface GroupRow {
  id: string;
  product_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  min_select: number;
  max_select: number;
  position: number;
}

interface OptionRow {
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

const toCategory = (r: CategoryRow): CategoryRecord => ({
  id: r.id,
  storeId: r.store_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  name: r.name,
  position: r.position,
  active: r.active === 1,
  sourceUpdatedAt: r.source_updated_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toProduct = (r: ProductRow): ProductRecord => ({
  id: r.id,
  storeId: r.store_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  categoryId: r.category_id,
  name: r.name,
  price: r.price,
  description: r.description,
  sku: r.sku,
  active: r.active === 1,
  available: r.available === 1,
  position: r.position,
  photoUrl: r.photo_url,
  photoSource: r.photo_source,
  imageStatus: r.image_status,
  imageRequestedUrl: r.image_requested_url,
  imageError: r.image_error,
  sourceUpdatedAt: r.source_updated_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const productParams = (p: Omit<ProductRecord, 'storeId' | 'createdAt'> & Partial<Pick<ProductRecord, 'storeId' | 'createdAt'>>) => ({
  id: p.id,
  store_id: p.storeId,
  integration_id: p.integrationId,
  external_id: p.externalId,
  category_id: p.categoryId,
  name: p.name,
  price: p.price,
  description: p.description,
  sku: p.sku,
  active: p.active ? 1 : 0,
  available: p.available ? 1 : 0,
  position: p.position,
  photo_url: p.photoUrl,
  photo_source: p.photoSource,
  image_status: p.imageStatus,
  image_requested_url: p.imageRequestedUrl,
  image_error: p.imageError,
  source_updated_at: p.sourceUpdatedAt,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

const toGroup = (r: GroupRow): OptionGroupRecord => ({
  id: r.id,
  productId: r.product_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  name: r.name,
  minSelect: r.min_select,
  maxSelect: r.max_select,
  position: r.position,
});

const toOption = (r: OptionRow): OptionRecord => ({
  id: r.id,
  groupId: r.group_id,
  productId: r.product_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  name: r.name,
  price: r.price,
  available: r.available === 1,
  position: r.position,
});

const linked = (r: { id: string; external_id: string; active: number }): LinkedItem => ({ id: r.id, externalId: r.external_id, active: r.active === 1 });
const one = <R, T>(map: (r: R) => T) => (row: R | undefined): T | undefined => (row ? map(row) : undefined);

export function sqliteCatalog(db: Db): CatalogRepository {
  const s = {
    categoryByExternal: db.prepare<[string, string], CategoryRow>('SELECT * FROM categories WHERE integration_id = ? AND external_id = ?'),
    categoryById: db.prepare<[string], CategoryRow>('SELECT * FROM categories WHERE id = ?'),
    categoryByName: db.prepare<[string, string], CategoryRow>('SELECT * FROM categories WHERE store_id = ? AND name = ? ORDER BY active DESC, id LIMIT 1'),
    insertCategory: db.prepare(
      `INSERT INTO categories (id, store_id, integration_id, external_id, name, position, active, source_updated_at, created_at, updated_at)
       VALUES (@id, @store_id, @integration_id, @external_id, @name, @position, @active, @source_updated_at, @created_at, @updated_at)`,
    ),
    updateCategory: db.prepare(
      `UPDATE categories SET name = @name, position = @position, active = @active, source_updated_at = @source_updated_at,
         updated_at = @updated_at WHERE id = @id`,
    ),
    setCategorySourceUpdatedAt: db.prepare<[number, string]>('UPDATE categories SET source_updated_at = ? WHERE id = ?'),
    listCategories: db.prepare<{ store_id: string; since: number; after: string; limit: number }, CategoryRow>(
      'SELECT * FROM categories WHERE store_id = @store_id AND updated_at >= @since AND id > @after ORDER BY id LIMIT @limit',
    ),
    activeProductsInCategory: db.prepare<[string], number>('SELECT COUNT(*) FROM products WHERE category_id = ? AND active = 1').pluck(),
    // What the missing-items policy looks at: the integration's linked items, active or not.
    linkedCategories: db.prepare<[string], { id: string; external_id: string; active: number }>(
      'SELECT id, external_id, active FROM categories WHERE integration_id = ? AND external_id IS NOT NULL ORDER BY id',
    ),
    productByExternal: db.prepare<[string, string], ProductRow>('SELECT * FROM products WHERE integration_id = ? AND external_id = ?'),
    productById: db.prepare<[string], ProductRow>('SELECT * FROM products WHERE id = ?'),
    productViewById: db.prepare<[string], ProductRow & { category_external_id: string | null }>(
      'SELECT p.*, c.external_id AS category_external_id FROM products p JOIN categories c ON c.id = p.category_id WHERE p.id = ?',
    ),
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
    setProductSourceUpdatedAt: db.prepare<[number, string]>('UPDATE products SET source_updated_at = ? WHERE id = ?'),
    linkedProducts: db.prepare<[string], { id: string; external_id: string; active: number }>(
      'SELECT id, external_id, active FROM products WHERE integration_id = ? AND external_id IS NOT NULL ORDER BY id',
    ),
    touchProduct: db.prepare<[number, string]>('UPDATE products SET updated_at = ? WHERE id = ?'),
    setImage: db.prepare(
      `UPDATE products SET photo_url = @photo_url, photo_source = @photo_source, image_status = @image_status,
         image_requested_url = @image_requested_url, image_error = @image_error, updated_at = @updated_at WHERE id = @id`,
    ),
    /** `ids` is a JSON array of product ids: one query for a whole page. */
    groupsOfProducts: db.prepare<{ ids: string }, GroupRow>(
      'SELECT * FROM option_groups WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id',
    ),
    optionsOfProducts: db.prepare<{ ids: string }, OptionRow>(
      'SELECT * FROM options WHERE product_id IN (SELECT value FROM json_each(@ids)) ORDER BY product_id, position, id',
    ),
    groupsOfProduct: db.prepare<[string], GroupRow>('SELECT * FROM option_groups WHERE product_id = ? ORDER BY position, id'),
    optionsOfProduct: db.prepare<[string], OptionRow>('SELECT * FROM options WHERE product_id = ? ORDER BY position, id'),
    groupByExternal: db.prepare<[string, string], GroupRow>('SELECT * FROM option_groups WHERE integration_id = ? AND external_id = ?'),
    optionByExternal: db.prepare<[string, string], OptionRow>('SELECT * FROM options WHERE integration_id = ? AND external_id = ?'),
    optionById: db.prepare<[string], OptionRow>('SELECT * FROM options WHERE id = ?'),
    insertGroup: db.prepare(
      `INSERT INTO option_groups (id, product_id, integration_id, external_id, name, min_select, max_select, position)
       VALUES (@id, @product_id, @integration_id, @external_id, @name, @min_select, @max_select, @position)`,
    ),
    updateGroup: db.prepare('UPDATE option_groups SET name = @name, min_select = @min_select, max_select = @max_select, position = @position WHERE id = @id'),
    deleteGroup: db.prepare<[string]>('DELETE FROM option_groups WHERE id = ?'),
    insertOption: db.prepare(
      `INSERT INTO options (id, group_id, product_id, integration_id, external_id, name, price, available, position)
       VALUES (@id, @group_id, @product_id, @integration_id, @external_id, @name, @price, @available, @position)`,
    ),
    updateOption: db.prepare('UPDATE options SET group_id = @group_id, name = @name, price = @price, available = @available, position = @position WHERE id = @id'),
    patchOption: db.prepare('UPDATE options SET price = @price, available = @available WHERE id = @id'),
    deleteOption: db.prepare<[string]>('DELETE FROM options WHERE id = ?'),
    firstPublished: db.prepare<{ store_id: string; integration_id: string }, { externalId: string; name: string }>(
      `SELECT external_id AS externalId, name FROM products
       WHERE store_id = @store_id AND integration_id = @integration_id AND external_id IS NOT NULL AND active = 1 AND available = 1
       ORDER BY created_at, rowid LIMIT 1`,
    ),
    importable: db.prepare<{ store_id: string; integration_id: string }, string>(
      `SELECT p.id FROM products p JOIN categories c ON c.id = p.category_id
       WHERE p.store_id = @store_id AND p.external_id IS NOT NULL AND p.active = 1 AND p.available = 1 AND c.active = 1
         AND NOT EXISTS (SELECT 1 FROM option_groups g WHERE g.product_id = p.id AND g.min_select > 0)
       ORDER BY p.integration_id IS NOT @integration_id, p.created_at, p.rowid LIMIT 1`,
    ).pluck(),
  };
  const page = productPageReader(db);
  const many = (ids: readonly string[]) => ({ ids: JSON.stringify(ids) });
  return {
    categoryByExternal: async (integrationId, code) => one(toCategory)(s.categoryByExternal.get(integrationId, code)),
    categoryById: async (id) => one(toCategory)(s.categoryById.get(id)),
    categoryByName: async (storeId, name) => one(toCategory)(s.categoryByName.get(storeId, name)),
    async insertCategory(c) {
      s.insertCategory.run({
        id: c.id, store_id: c.storeId, integration_id: c.integrationId, external_id: c.externalId, name: c.name, position: c.position,
        active: c.active ? 1 : 0, source_updated_at: c.sourceUpdatedAt, created_at: c.createdAt, updated_at: c.updatedAt,
      });
    },
    async updateCategory(c) {
      s.updateCategory.run({ id: c.id, name: c.name, position: c.position, active: c.active ? 1 : 0, source_updated_at: c.sourceUpdatedAt, updated_at: c.updatedAt });
    },
    async setCategorySourceUpdatedAt(id, at) {
      s.setCategorySourceUpdatedAt.run(at, id);
    },
    listCategories: async (a) => s.listCategories.all({ store_id: a.storeId, since: a.since, after: a.after, limit: a.limit }).map(toCategory),
    activeProductsInCategory: async (categoryId) => s.activeProductsInCategory.get(categoryId) as number,
    linkedCategories: async (integrationId) => s.linkedCategories.all(integrationId).map(linked),

    productByExternal: async (integrationId, code) => one(toProduct)(s.productByExternal.get(integrationId, code)),
    productById: async (id) => one(toProduct)(s.productById.get(id)),
    async productViewById(id) {
      const row = s.productViewById.get(id);
      return row ? ({ ...toProduct(row), categoryExternalId: row.category_external_id } satisfies ProductView) : undefined;
    },
    async insertProduct(p) {
      s.insertProduct.run(productParams(p));
    },
    async updateProduct(p) {
      const { store_id: _store, created_at: _created, ...params } = productParams(p);
      s.updateProduct.run(params);
    },
    async setProductSourceUpdatedAt(id, at) {
      s.setProductSourceUpdatedAt.run(at, id);
    },
    linkedProducts: async (integrationId) => s.linkedProducts.all(integrationId).map(linked),
    async touchProduct(id, at) {
      s.touchProduct.run(at, id);
    },
    async setImage(id, image, updatedAt) {
      s.setImage.run({
        id, photo_url: image.photoUrl, photo_source: image.photoSource, image_status: image.imageStatus,
        image_requested_url: image.imageRequestedUrl, image_error: image.imageError, updated_at: updatedAt,
      });
    },
    productPage: async (args) => page(args),
    firstPublishedProduct: async (storeId, integrationId) => s.firstPublished.get({ store_id: storeId, integration_id: integrationId }),
    importableProduct: async (storeId, integrationId) => s.importable.get({ store_id: storeId, integration_id: integrationId }),

    async groupsOfProducts(ids) {
      if (ids.length === 1) return s.groupsOfProduct.all(ids[0]!).map(toGroup);
      return ids.length === 0 ? [] : s.groupsOfProducts.all(many(ids)).map(toGroup);
    },
    async optionsOfProducts(ids) {
      if (ids.length === 1) return s.optionsOfProduct.all(ids[0]!).map(toOption);
      return ids.length === 0 ? [] : s.optionsOfProducts.all(many(ids)).map(toOption);
    },
    groupByExternal: async (integrationId, code) => one(toGroup)(s.groupByExternal.get(integrationId, code)),
    optionByExternal: async (integrationId, code) => one(toOption)(s.optionByExternal.get(integrationId, code)),
    optionById: async (id) => one(toOption)(s.optionById.get(id)),
    async insertGroup(g) {
      s.insertGroup.run({
        id: g.id, product_id: g.productId, integration_id: g.integrationId, external_id: g.externalId, name: g.name,
        min_select: g.minSelect, max_select: g.maxSelect, position: g.position,
      });
    },
    async updateGroup(g) {
      s.updateGroup.run({ id: g.id, name: g.name, min_select: g.minSelect, max_select: g.maxSelect, position: g.position });
    },
    async deleteGroup(id) {
      s.deleteGroup.run(id);
    },
    async insertOption(o) {
      s.insertOption.run({
        id: o.id, group_id: o.groupId, product_id: o.productId, integration_id: o.integrationId, external_id: o.externalId,
        name: o.name, price: o.price, available: o.available ? 1 : 0, position: o.position,
      });
    },
    async updateOption(o) {
      s.updateOption.run({ id: o.id, group_id: o.groupId, name: o.name, price: o.price, available: o.available ? 1 : 0, position: o.position });
    },
    async patchOption(o) {
      s.patchOption.run({ id: o.id, price: o.price, available: o.available ? 1 : 0 });
    },
    async deleteOption(id) {
      s.deleteOption.run(id);
    },
  };
}
