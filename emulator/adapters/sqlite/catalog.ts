import type { Db } from './open.js';
import type { CatalogRepository, ProductView } from '../../catalog/repository.js';
import { productPageReader } from './product-page.js';
import { catalogStatements } from './catalog-statements.js';
import { linked, one, productParams, toCategory, toGroup, toOption, toProduct } from './catalog-rows.js';

// The catalog's repository on SQLite: categories, products, option groups, options (statements in
// catalog-statements.ts, rows and records in catalog-rows.ts).

export function sqliteCatalog(db: Db): CatalogRepository {
  const s = catalogStatements(db);
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
