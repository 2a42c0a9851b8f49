// The catalog's columns named as the records' fields (rows are the records), for the catalog and its page.

export const PRODUCT = `p.id, p.store_id AS "storeId", p.integration_id AS "integrationId", p.external_id AS "externalId",
  p.category_id AS "categoryId", p.name, p.price, p.description, p.sku, p.active, p.available, p.position, p.photo_url AS "photoUrl",
  p.photo_source AS "photoSource", p.image_status AS "imageStatus", p.image_requested_url AS "imageRequestedUrl",
  p.image_error AS "imageError", p.source_updated_at AS "sourceUpdatedAt", p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

export const GROUP = `id, product_id AS "productId", integration_id AS "integrationId", external_id AS "externalId", name,
  min_select AS "minSelect", max_select AS "maxSelect", position`;

export const OPTION = `id, group_id AS "groupId", product_id AS "productId", integration_id AS "integrationId", external_id AS "externalId",
  name, price, available, position`;
