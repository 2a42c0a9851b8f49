import type { OptionGroupRecord, OptionRecord, ProductPageArgs, ProductView } from '../../catalog/repository.js';
import { groupBy, presentProduct } from '../../catalog/present.js';
import { page } from '../../catalog/cursor.js';
import { statement, tableIn, type Conn } from './conn.js';
import { GROUP, OPTION, PRODUCT } from './catalog-columns.js';

// GET /catalog/products on PostgreSQL: the page's products in id order (the products_page index
// serves the filter and the order), their option groups and options, presented by the catalog's own
// presenter and stringified: the same bytes as the SQLite adapter's texts, by construction. The
// standalone read keeps nothing between requests (another process may have written since: the change
// feed is not exact); an admission keeps pages under the store's catalog version (admission.ts).

/**
 * The page in one statement, one snapshot (issue 25): a CTE `page` (one more product than the limit,
 * to tell whether a next page exists) and its products, option groups and options, each as a JSON
 * array of records (the columns' aliases are the records' fields; bigint and integer columns come back
 * as numbers, as the adapter's row parser gives them). No filter is `$n IS NULL`: one plan serves every
 * combination; an unknown category filters everything out, as a filter does. $1 store, $2 since, $3
 * after, $4 the limit plus one, $5 integration, $6 category's external id, $7 active. An admission
 * reads the same page through `product_page` (migration 13), which answers the same, field for field
 * (test/emulator/adapters/postgres/admission-reads.test.ts).
 */
export function productPageSql(schema: string) {
  const t = tableIn(schema);
  return {
    page: statement(`WITH page AS (
         SELECT ${PRODUCT}, c.external_id AS "categoryExternalId"
         FROM ${t('products')} p JOIN ${t('categories')} c ON c.id = p.category_id
         WHERE p.store_id = $1 AND p.updated_at >= $2 AND p.id > $3
           AND ($6::text IS NULL OR p.category_id = (SELECT id FROM ${t('categories')} WHERE integration_id = $5 AND external_id = $6::text))
           AND ($7::boolean IS NULL OR p.active = $7::boolean)
         ORDER BY p.id LIMIT $4
       )
       SELECT (SELECT COALESCE(json_agg(x ORDER BY x.id), '[]'::json) FROM page x) AS products,
         (SELECT COALESCE(json_agg(g ORDER BY g."productId", g.position, g.id), '[]'::json)
            FROM (SELECT ${GROUP} FROM ${t('option_groups')} WHERE product_id IN (SELECT id FROM page)) g) AS groups,
         (SELECT COALESCE(json_agg(o ORDER BY o."productId", o.position, o.id), '[]'::json)
            FROM (SELECT ${OPTION} FROM ${t('options')} WHERE product_id IN (SELECT id FROM page)) o) AS options`),
  };
}

/** The columns of a page (`productPageSql`, or the JSON object of `product_page`). */
export interface ProductPageRow {
  products: ProductView[];
  groups: OptionGroupRecord[];
  options: OptionRecord[];
}

/** The page's response body from its rows (`limit`: the page's size; the rows may hold one more). */
export function productPageBody(row: ProductPageRow, limit: number): Buffer {
  const cut = page(row.products, limit);
  const groups = groupBy(row.groups, (g) => g.productId);
  const options = groupBy(row.options, (o) => o.groupId);
  const data = cut.rows.map((view) => presentProduct(view, groups.get(view.id) ?? [], options));
  return Buffer.from(JSON.stringify({ data, next_cursor: cut.next_cursor }), 'utf8');
}

export async function productPage(conn: Conn, s: ReturnType<typeof productPageSql>, args: ProductPageArgs): Promise<Buffer> {
  const [row] = await conn.rows<ProductPageRow>(s.page, [
    args.storeId, args.since, args.after, args.limit + 1, args.integrationId, args.categoryExternalId, args.active,
  ]);
  return productPageBody(row!, args.limit);
}
