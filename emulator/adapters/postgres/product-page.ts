import type { OptionGroupRecord, OptionRecord, ProductPageArgs, ProductView } from '../../catalog/repository.js';
import { groupBy, presentProduct } from '../../catalog/present.js';
import { page } from '../../catalog/cursor.js';
import { statement, tableIn, type Conn } from './conn.js';
import { GROUP, OPTION, PRODUCT } from './catalog-columns.js';

// GET /catalog/products on PostgreSQL: the page's products in id order (the products_page index
// serves the filter and the order), their option groups and options, presented by the catalog's own
// presenter and stringified: the same bytes as the SQLite adapter's texts, by construction. Nothing is
// kept between requests: another process may have written since (the change feed is not exact).

export function productPageSql(schema: string) {
  const t = tableIn(schema);
  return {
    categoryId: statement(`SELECT id FROM ${t('categories')} WHERE integration_id = $1 AND external_id = $2`),
    // No filter is `$n IS NULL`: one plan serves every combination of filters.
    products: statement(
      `SELECT ${PRODUCT}, c.external_id AS "categoryExternalId"
       FROM ${t('products')} p JOIN ${t('categories')} c ON c.id = p.category_id
       WHERE p.store_id = $1 AND p.updated_at >= $2 AND p.id > $3
         AND ($5::text IS NULL OR p.category_id = $5::text) AND ($6::boolean IS NULL OR p.active = $6::boolean)
       ORDER BY p.id LIMIT $4`,
    ),
    groups: statement(`SELECT ${GROUP} FROM ${t('option_groups')} WHERE product_id = ANY($1::text[]) ORDER BY product_id, position, id`),
    options: statement(`SELECT ${OPTION} FROM ${t('options')} WHERE product_id = ANY($1::text[]) ORDER BY product_id, position, id`),
  };
}

const EMPTY_PAGE = '{"data":[],"next_cursor":null}';

export async function productPage(conn: Conn, s: ReturnType<typeof productPageSql>, args: ProductPageArgs): Promise<Buffer> {
  let category: string | null = null;
  if (args.categoryExternalId !== null) {
    const [found] = await conn.rows<{ id: string }>(s.categoryId, [args.integrationId, args.categoryExternalId]);
    // An unknown category filters everything out, as a filter does.
    if (!found) return Buffer.from(EMPTY_PAGE);
    category = found.id;
  }
  const rows = await conn.rows<ProductView>(s.products, [args.storeId, args.since, args.after, args.limit + 1, category, args.active]);
  const cut = page(rows, args.limit);
  const ids = cut.rows.map((r) => r.id);
  const groups = ids.length ? groupBy(await conn.rows<OptionGroupRecord>(s.groups, [ids]), (g) => g.productId) : new Map<string, OptionGroupRecord[]>();
  const options = groups.size
    ? groupBy(await conn.rows<OptionRecord>(s.options, [ids]), (o) => o.groupId)
    : new Map<string, OptionRecord[]>();
  const data = cut.rows.map((view) => presentProduct(view, groups.get(view.id) ?? [], options));
  return Buffer.from(JSON.stringify({ data, next_cursor: cut.next_cursor }), 'utf8');
}
