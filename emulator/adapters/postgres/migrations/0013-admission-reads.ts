import type { PgMigration } from './index.js';

// issue 25 (thirteenth step): an admission's products page as a function, called only when the
// store's catalog moved since the page the process keeps (admission.ts). Written inside the
// admission's statement, the page's read (products, categories, option groups, options: four tables,
// their indexes, a dozen plan nodes) was opened, built and torn down at every execution of its
// generic plan, even when the page was not read, which is nearly always: a third of the statement's
// CPU. A PL/pgSQL function keeps its own plan for the session and starts it only when called. It is
// STABLE: it reads with the snapshot of the statement that calls it, so the page is as of the
// admission, as before. The text is this step's, frozen: the page's columns (catalog-columns.ts) and
// its filter (product-page.ts) as they stand here; a change to either needs a step that replaces it.
// No table or column changed: bundles of the previous version restore as they are.
export const admissionReads: PgMigration = {
  version: 13,
  name: 'admission-reads',
  env: `
    CREATE OR REPLACE FUNCTION product_page(store text, integration text, since bigint, after text, limit_plus_one integer,
      category_external_id text, active boolean) RETURNS json LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
      DECLARE
        answer json;
      BEGIN
        WITH page AS (
          SELECT p.id, p.store_id AS "storeId", p.integration_id AS "integrationId", p.external_id AS "externalId",
            p.category_id AS "categoryId", p.name, p.price, p.description, p.sku, p.active, p.available, p.position, p.photo_url AS "photoUrl",
            p.photo_source AS "photoSource", p.image_status AS "imageStatus", p.image_requested_url AS "imageRequestedUrl",
            p.image_error AS "imageError", p.source_updated_at AS "sourceUpdatedAt", p.created_at AS "createdAt", p.updated_at AS "updatedAt",
            c.external_id AS "categoryExternalId"
          FROM products p JOIN categories c ON c.id = p.category_id
          WHERE p.store_id = product_page.store AND p.updated_at >= product_page.since AND p.id > product_page.after
            AND (product_page.category_external_id IS NULL OR p.category_id = (SELECT k.id FROM categories k
              WHERE k.integration_id = product_page.integration AND k.external_id = product_page.category_external_id))
            AND (product_page.active IS NULL OR p.active = product_page.active)
          ORDER BY p.id LIMIT product_page.limit_plus_one
        )
        SELECT json_build_object(
          'products', (SELECT COALESCE(json_agg(x ORDER BY x.id), '[]'::json) FROM page x),
          'groups', (SELECT COALESCE(json_agg(g ORDER BY g."productId", g.position, g.id), '[]'::json)
            FROM (SELECT id, product_id AS "productId", integration_id AS "integrationId", external_id AS "externalId", name,
              min_select AS "minSelect", max_select AS "maxSelect", position
              FROM option_groups WHERE product_id IN (SELECT id FROM page)) g),
          'options', (SELECT COALESCE(json_agg(o ORDER BY o."productId", o.position, o.id), '[]'::json)
            FROM (SELECT id, group_id AS "groupId", product_id AS "productId", integration_id AS "integrationId", external_id AS "externalId",
              name, price, available, position
              FROM options WHERE product_id IN (SELECT id FROM page)) o))
        INTO answer;
        RETURN answer;
      END
    $$;
  `,
};
