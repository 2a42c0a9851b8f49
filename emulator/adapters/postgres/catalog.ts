import type { Environment } from '../../../src/contract/store.js';
import type {
  CatalogRepository, CategoryRecord, LinkedItem, OptionGroupRecord, OptionRecord, ProductRecord, ProductView, ProductWithOptions,
} from '../../catalog/repository.js';
import { statement, tableIn, type Conn } from './conn.js';
import { productPage, productPageSql } from './product-page.js';
import { GROUP, OPTION, PRODUCT } from './catalog-columns.js';
import { deepFreeze, Kept } from './kept.js';

// The catalog's tables: categories, products, option groups, options. Rows are read with the
// records' field names, so they are the records. Every write is a `catalog` change.

const CATEGORY = `id, store_id AS "storeId", integration_id AS "integrationId", external_id AS "externalId", name, position, active,
  source_updated_at AS "sourceUpdatedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

const LINKED = `id, external_id AS "externalId", active`;

export function catalogSql(schema: string) {
  const t = tableIn(schema);
  return {
    page: productPageSql(schema),
    categoryByExternal: statement(`SELECT ${CATEGORY} FROM ${t('categories')} WHERE integration_id = $1 AND external_id = $2`),
    categoryById: statement(`SELECT ${CATEGORY} FROM ${t('categories')} WHERE id = $1`),
    categoryByName: statement(`SELECT ${CATEGORY} FROM ${t('categories')} WHERE store_id = $1 AND name = $2 ORDER BY active DESC, id LIMIT 1`),
    insertCategory: statement(
      `INSERT INTO ${t('categories')} (id, store_id, integration_id, external_id, name, position, active, source_updated_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    ),
    updateCategory: statement(
      `UPDATE ${t('categories')} SET name = $2, position = $3, active = $4, source_updated_at = $5, updated_at = $6 WHERE id = $1`,
    ),
    setCategorySourceUpdatedAt: statement(`UPDATE ${t('categories')} SET source_updated_at = $2 WHERE id = $1`),
    listCategories: statement(
      `SELECT ${CATEGORY} FROM ${t('categories')} WHERE store_id = $1 AND updated_at >= $2 AND id > $3 ORDER BY id LIMIT $4`,
    ),
    activeProductsInCategory: statement(`SELECT COUNT(*) AS n FROM ${t('products')} WHERE category_id = $1 AND active`),
    linkedCategories: statement(`SELECT ${LINKED} FROM ${t('categories')} WHERE integration_id = $1 AND external_id IS NOT NULL ORDER BY id`),
    productByExternal: statement(`SELECT ${PRODUCT} FROM ${t('products')} p WHERE p.integration_id = $1 AND p.external_id = $2`),
    productById: statement(`SELECT ${PRODUCT} FROM ${t('products')} p WHERE p.id = $1`),
    productViewById: statement(
      `SELECT ${PRODUCT}, c.external_id AS "categoryExternalId" FROM ${t('products')} p JOIN ${t('categories')} c ON c.id = p.category_id
       WHERE p.id = $1`,
    ),
    insertProduct: statement(
      `INSERT INTO ${t('products')} (id, store_id, integration_id, external_id, category_id, name, price, description, sku, active, available,
         position, photo_url, photo_source, image_status, image_requested_url, image_error, source_updated_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    ),
    updateProduct: statement(
      `UPDATE ${t('products')} SET integration_id = $2, external_id = $3, category_id = $4, name = $5, price = $6, description = $7,
         sku = $8, active = $9, available = $10, position = $11, photo_url = $12, photo_source = $13, image_status = $14,
         image_requested_url = $15, image_error = $16, source_updated_at = $17, updated_at = $18 WHERE id = $1`,
    ),
    setProductSourceUpdatedAt: statement(`UPDATE ${t('products')} SET source_updated_at = $2 WHERE id = $1`),
    linkedProducts: statement(`SELECT ${LINKED} FROM ${t('products')} WHERE integration_id = $1 AND external_id IS NOT NULL ORDER BY id`),
    touchProduct: statement(`UPDATE ${t('products')} SET updated_at = $2 WHERE id = $1`),
    setImage: statement(
      `UPDATE ${t('products')} SET photo_url = $2, photo_source = $3, image_status = $4, image_requested_url = $5, image_error = $6,
         updated_at = $7 WHERE id = $1`,
    ),
    groupsOfProducts: statement(`SELECT ${GROUP} FROM ${t('option_groups')} WHERE product_id = ANY($1::text[]) ORDER BY product_id, position, id`),
    optionsOfProducts: statement(`SELECT ${OPTION} FROM ${t('options')} WHERE product_id = ANY($1::text[]) ORDER BY product_id, position, id`),
    // Products with their groups and options as JSON arrays of records, in one statement (issue 25),
    // each with its store's catalog version: a product's columns, groups and options only when that
    // version is not the one of the product kept ($2, at the id's position in $1; null: none kept). See
    // `keptProducts`. The products are found by their ids as before (an index scan: joined to the
    // ids unnested, the generic plan scanned the whole table).
    // OFFSET 0 keeps the planner from pulling the subquery up into the join: pulled up, its columns
    // (the groups' and options' aggregates) were computed for every row, kept or not.
    productsWithOptions: statement(
      `SELECT p.id AS "keptId", COALESCE(v.version, 0)::text AS "catalogVersion", f.*
       FROM ${t('products')} p LEFT JOIN ${t('catalog_versions')} v ON v.store_id = p.store_id
       LEFT JOIN LATERAL (SELECT ${PRODUCT},
         (SELECT COALESCE(json_agg(json_build_object('id', g.id, 'productId', g.product_id, 'integrationId', g.integration_id,
            'externalId', g.external_id, 'name', g.name, 'minSelect', g.min_select, 'maxSelect', g.max_select, 'position', g.position)
            ORDER BY g.position, g.id), '[]'::json) FROM ${t('option_groups')} g WHERE g.product_id = p.id) AS "groups",
         (SELECT COALESCE(json_agg(json_build_object('id', o.id, 'groupId', o.group_id, 'productId', o.product_id,
            'integrationId', o.integration_id, 'externalId', o.external_id, 'name', o.name, 'price', o.price, 'available', o.available,
            'position', o.position) ORDER BY o.position, o.id), '[]'::json) FROM ${t('options')} o WHERE o.product_id = p.id) AS "options"
         WHERE COALESCE(v.version, 0) IS DISTINCT FROM ($2::bigint[])[array_position($1::text[], p.id)] OFFSET 0) f ON true
       WHERE p.id = ANY($1::text[])`,
    ),
    /** The products with options read last, shared by every transaction of the adapter (see `keptProducts`). */
    productsKept: new Kept<KeptProduct>(MAX_KEPT_PRODUCTS, MAX_KEPT_PRODUCT_BYTES, (k) => k.bytes),
    groupByExternal: statement(`SELECT ${GROUP} FROM ${t('option_groups')} WHERE integration_id = $1 AND external_id = $2`),
    optionByExternal: statement(`SELECT ${OPTION} FROM ${t('options')} WHERE integration_id = $1 AND external_id = $2`),
    optionById: statement(`SELECT ${OPTION} FROM ${t('options')} WHERE id = $1`),
    insertGroup: statement(
      `INSERT INTO ${t('option_groups')} (id, product_id, integration_id, external_id, name, min_select, max_select, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    ),
    updateGroup: statement(`UPDATE ${t('option_groups')} SET name = $2, min_select = $3, max_select = $4, position = $5 WHERE id = $1`),
    deleteGroup: statement(`DELETE FROM ${t('option_groups')} WHERE id = $1`),
    insertOption: statement(
      `INSERT INTO ${t('options')} (id, group_id, product_id, integration_id, external_id, name, price, available, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    ),
    updateOption: statement(`UPDATE ${t('options')} SET group_id = $2, name = $3, price = $4, available = $5, position = $6 WHERE id = $1`),
    patchOption: statement(`UPDATE ${t('options')} SET price = $2, available = $3 WHERE id = $1`),
    deleteOption: statement(`DELETE FROM ${t('options')} WHERE id = $1`),
    firstPublished: statement(
      `SELECT external_id AS "externalId", name FROM ${t('products')}
       WHERE store_id = $1 AND integration_id = $2 AND external_id IS NOT NULL AND active AND available
       ORDER BY created_at, rowid LIMIT 1`,
    ),
    // The integration's own products first (IS DISTINCT FROM: SQLite's IS NOT, false before true).
    importable: statement(
      `SELECT p.id FROM ${t('products')} p JOIN ${t('categories')} c ON c.id = p.category_id
       WHERE p.store_id = $1 AND p.external_id IS NOT NULL AND p.active AND p.available AND c.active
         AND NOT EXISTS (SELECT 1 FROM ${t('option_groups')} g WHERE g.product_id = p.id AND g.min_select > 0)
       ORDER BY p.integration_id IS DISTINCT FROM $2, p.created_at, p.rowid LIMIT 1`,
    ),
  };
}

const productValues = (p: ProductRecord) => [
  p.id, p.storeId, p.integrationId, p.externalId, p.categoryId, p.name, p.price, p.description, p.sku, p.active, p.available,
  p.position, p.photoUrl, p.photoSource, p.imageStatus, p.imageRequestedUrl, p.imageError, p.sourceUpdatedAt, p.createdAt, p.updatedAt,
];

/** A product with its groups and options at its store's catalog version (a transaction id, as text: bigint), frozen. */
export interface KeptProduct {
  version: string;
  found: ProductWithOptions;
  bytes: number;
}

const MAX_KEPT_PRODUCTS = 10_000;
const MAX_KEPT_PRODUCT_BYTES = 32 * 1024 * 1024;

type KeptProductRow = { keptId: string; catalogVersion: string; groups: OptionGroupRecord[]; options: OptionRecord[] } & (ProductRecord | { id: null });

/**
 * Products with their groups and options (the simulator's cart), kept by id with their store's catalog
 * version (issue 25, fourteenth step): the statement sends a product again only when that version
 * moved, and a kept one is the same object for every reader. The version is read in the same
 * statement as the product would be, so a kept product is what that statement's snapshot holds; a
 * unit of work that wrote the catalog itself (its writes are in no version until its COMMIT) reads
 * them whole and keeps nothing. Versions are transaction ids, never handed out twice: a reset or a
 * restore writes its rows in a new one, and nothing kept before matches again.
 */
async function keptProducts(conn: Conn, s: ReturnType<typeof catalogSql>, ids: readonly string[]): Promise<ProductWithOptions[]> {
  if (ids.length === 0) return [];
  const own = conn.wrote?.('catalog') ?? false;
  // What was sent, by id: a kept entry replaced meanwhile (another request's newer read) is not this statement's.
  const sent = new Map<string, KeptProduct>();
  if (!own) for (const id of ids) {
    const kept = s.productsKept.get(id);
    if (kept) sent.set(id, kept);
  }
  const rows = await conn.rows<KeptProductRow>(s.productsWithOptions, [ids, ids.map((id) => sent.get(id)?.version ?? null)]);
  return rows.map(({ keptId, catalogVersion, groups, options, ...product }) => {
    if (product.id === null) return sent.get(keptId)!.found;
    const found = deepFreeze({ product: product as ProductRecord, groups, options });
    if (!own) s.productsKept.keep(keptId, { version: catalogVersion, found, bytes: productBytes(found) });
    return found;
  });
}

/** About how many bytes a product with its options holds in memory. */
function productBytes({ product, groups, options }: ProductWithOptions): number {
  return 1024 + 2 * (product.name.length + (product.description?.length ?? 0)) + 320 * (groups.length + options.length);
}

export function pgCatalog(conn: Conn, s: ReturnType<typeof catalogSql>, environment: Environment): CatalogRepository {
  const changed = (storeId: string | null = null) => conn.changed({ topic: 'catalog', environment, storeId });
  const one = async <R>(st: typeof s.categoryById, values: unknown[]) => (await conn.rows<R>(st, values))[0];
  const write = async (st: typeof s.categoryById, values: unknown[], storeId: string | null = null) => {
    await conn.run(st, values);
    changed(storeId);
  };
  return {
    categoryByExternal: (integrationId, code) => one<CategoryRecord>(s.categoryByExternal, [integrationId, code]),
    categoryById: (id) => one<CategoryRecord>(s.categoryById, [id]),
    categoryByName: (storeId, name) => one<CategoryRecord>(s.categoryByName, [storeId, name]),
    insertCategory: (c) =>
      write(s.insertCategory, [c.id, c.storeId, c.integrationId, c.externalId, c.name, c.position, c.active, c.sourceUpdatedAt, c.createdAt, c.updatedAt], c.storeId),
    updateCategory: (c) => write(s.updateCategory, [c.id, c.name, c.position, c.active, c.sourceUpdatedAt, c.updatedAt]),
    setCategorySourceUpdatedAt: (id, at) => write(s.setCategorySourceUpdatedAt, [id, at]),
    listCategories: (a) => conn.rows<CategoryRecord>(s.listCategories, [a.storeId, a.since, a.after, a.limit]),
    activeProductsInCategory: async (categoryId) => (await conn.rows<{ n: number }>(s.activeProductsInCategory, [categoryId]))[0]!.n,
    linkedCategories: (integrationId) => conn.rows<LinkedItem>(s.linkedCategories, [integrationId]),

    productByExternal: (integrationId, code) => one<ProductRecord>(s.productByExternal, [integrationId, code]),
    productById: (id) => one<ProductRecord>(s.productById, [id]),
    productViewById: (id) => one<ProductView>(s.productViewById, [id]),
    insertProduct: (p) => write(s.insertProduct, productValues(p), p.storeId),
    updateProduct: (p) =>
      write(s.updateProduct, [
        p.id, p.integrationId, p.externalId, p.categoryId, p.name, p.price, p.description, p.sku, p.active, p.available, p.position,
        p.photoUrl, p.photoSource, p.imageStatus, p.imageRequestedUrl, p.imageError, p.sourceUpdatedAt, p.updatedAt,
      ]),
    setProductSourceUpdatedAt: (id, at) => write(s.setProductSourceUpdatedAt, [id, at]),
    linkedProducts: (integrationId) => conn.rows<LinkedItem>(s.linkedProducts, [integrationId]),
    touchProduct: (id, at) => write(s.touchProduct, [id, at]),
    setImage: (id, i, updatedAt) => write(s.setImage, [id, i.photoUrl, i.photoSource, i.imageStatus, i.imageRequestedUrl, i.imageError, updatedAt]),
    productPage: (args) => productPage(conn, s.page, args),
    firstPublishedProduct: (storeId, integrationId) => one<{ externalId: string; name: string }>(s.firstPublished, [storeId, integrationId]),
    importableProduct: async (storeId, integrationId) => (await one<{ id: string }>(s.importable, [storeId, integrationId]))?.id,

    groupsOfProducts: async (ids) => (ids.length === 0 ? [] : conn.rows<OptionGroupRecord>(s.groupsOfProducts, [ids])),
    optionsOfProducts: async (ids) => (ids.length === 0 ? [] : conn.rows<OptionRecord>(s.optionsOfProducts, [ids])),
    productsWithOptions: (ids) => keptProducts(conn, s, ids),
    groupByExternal: (integrationId, code) => one<OptionGroupRecord>(s.groupByExternal, [integrationId, code]),
    optionByExternal: (integrationId, code) => one<OptionRecord>(s.optionByExternal, [integrationId, code]),
    optionById: (id) => one<OptionRecord>(s.optionById, [id]),
    insertGroup: (g) => write(s.insertGroup, [g.id, g.productId, g.integrationId, g.externalId, g.name, g.minSelect, g.maxSelect, g.position]),
    updateGroup: (g) => write(s.updateGroup, [g.id, g.name, g.minSelect, g.maxSelect, g.position]),
    deleteGroup: (id) => write(s.deleteGroup, [id]),
    insertOption: (o) =>
      write(s.insertOption, [o.id, o.groupId, o.productId, o.integrationId, o.externalId, o.name, o.price, o.available, o.position]),
    updateOption: (o) => write(s.updateOption, [o.id, o.groupId, o.name, o.price, o.available, o.position]),
    patchOption: (o) => write(s.patchOption, [o.id, o.price, o.available]),
    deleteOption: (id) => write(s.deleteOption, [id]),
  };
}
