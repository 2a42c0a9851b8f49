import type { PgMigration } from './index.js';

// issue 25 (thirteenth step): an admission's products page, and its order with its history, as
// functions called only when the store's catalog or the order moved since what the process keeps
// (admission.ts). Written inside the admission's statement, these reads (the page: products,
// categories, option groups, options; the order: its row and history, 27 columns carried through a
// join) were opened, built and torn down at every execution of its generic plan, even when not read,
// which is nearly always: a third of a products admission's CPU. A PL/pgSQL function keeps its own
// plan for the session and starts it only when called. They are STABLE: they read with the snapshot
// of the statement that calls them, so what they read is as of the admission, as before. The texts
// are this step's, frozen: the page's columns (catalog-columns.ts) and filter (product-page.ts), the
// order's fields (orders.ts FIELDS) and history as they stand here; a change to any needs a step
// that replaces the function. No table or column changed: bundles of the previous version restore
// as they are.
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

    CREATE OR REPLACE FUNCTION order_read(order_id text) RETURNS json LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
      DECLARE
        answer json;
      BEGIN
        SELECT json_build_object(
            'id', o.id, 'storeId', o.store_id, 'number', o.number, 'status', o.status,
            'statusReason', o.status_reason, 'fulfillmentType', o.fulfillment_type, 'estimatedMinutes', o.estimated_minutes, 'createdAt', o.created_at,
            'updatedAt', o.updated_at, 'scheduledFor', o.scheduled_for, 'customer', o.customer, 'deliveryAddress', o.delivery_address,
            'payment', o.payment, 'paymentStatus', o.payment_status, 'items', o.items, 'notes', o.notes,
            'subtotal', o.subtotal, 'deliveryFee', o.delivery_fee, 'discount', o.discount, 'total', o.total,
            'ackStatus', o.ack_status, 'externalId', o.external_id, 'externalNumber', o.external_number, 'acknowledgedAt', o.acknowledged_at,
            'ackIntegrationId', o.ack_integration_id, 'lastImportError', o.last_import_error, 'acceptedAt', o.accepted_at,
            'history', (SELECT COALESCE(json_agg(json_build_object('status', h.status, 'at', h.at, 'by', h.by,
              'integrationId', h.integration_id, 'reason', h.reason) ORDER BY h.seq), '[]'::json)
              FROM order_status_history h WHERE h.order_id = o.id))
        INTO answer
        FROM orders o WHERE o.id = order_read.order_id;
        RETURN answer;
      END
    $$;
  `,
};
