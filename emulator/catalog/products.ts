import { ApiError } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import { productInput, productPatch, type UpsertResult } from '../../src/contract/catalog.js';
import { isId } from '../../src/contract/ids.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { ProductRow } from '../data/catalog.js';
import type { IntegrationRecord } from '../data/integrations.js';
import { requestImageFetch } from '../images/queue.js';
import type { Upserted } from './categories.js';
import { assertCatalogManaged, checkExternalId, sourceTime } from './guard.js';
import { assertCodesFree, replaceOptionGroups } from './option-groups.js';
import { isStale, keptSourceUpdatedAt, planImage, sameImage, type ImageState } from './rules.js';
import { watchAcceptingOrders } from './store-watch.js';

const NO_IMAGE: ImageState = { photo_url: null, photo_source: null, image_status: 'none', image_requested_url: null, image_error: null };

/**
 * PUT /catalog/products/{external_id}: creates (201) or replaces (200) the product. Omitted optional
 * fields go back to their defaults, except `image_url` (omitting it never deletes the photo) and
 * `position` (omitted keeps the current one: the merchant decides). `linkToId` links a product made
 * in the panel to this code instead of creating a duplicate.
 */
export function upsertProduct(env: EnvContext, integration: IntegrationRecord, externalId: string, input: unknown, linkToId?: string): Upserted {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(productInput, input);
  if (linkToId !== undefined && !isId('product', linkToId)) {
    throw ApiError.field('link_to_id', 'invalid', 'Debe ser el id prd_ de un producto del comercio.');
  }
  const incoming = sourceTime(data.source_updated_at);
  return watchAcceptingOrders(env, integration.storeId, () => {
    const existing = findTarget(env, integration, code, linkToId);
    const answer = (status: 200 | 201, id: string, result: UpsertResult['result']): Upserted => ({ status, result: { id, external_id: code, result } });
    if (existing && isStale(existing.source_updated_at, incoming)) return answer(200, existing.id, 'ignored_stale');
    const category = env.catalog.categoryByExternal.get(integration.id, data.category_external_id);
    if (!category) {
      throw ApiError.field('category_external_id', 'not_found', 'No existe una categoría con ese código; envíe la categoría antes que sus productos.');
    }
    assertCodesFree(env, integration.id, existing?.id ?? null, data.option_groups);
    const now = env.clock.now();
    const fields = {
      integration_id: integration.id, external_id: code, category_id: category.id, name: data.name, price: parseAmount(data.price),
      description: data.description ?? null, sku: data.sku ?? null, active: data.active ? 1 : 0, available: data.available ? 1 : 0,
      position: data.position ?? existing?.position ?? null,
    };
    const image = planImage(existing ?? NO_IMAGE, data.image_url, data.image_mode);
    if (!existing) {
      const id = env.ids.next('product');
      env.catalog.insertProduct.run({
        id, store_id: integration.storeId, ...fields, ...image.next, source_updated_at: incoming ?? null, created_at: now, updated_at: now,
      });
      replaceOptionGroups(env, integration.id, id, data.option_groups);
      if (image.fetch) requestImageFetch(env, id, image.fetch);
      return answer(201, id, 'created');
    }
    const groupsChanged = replaceOptionGroups(env, integration.id, existing.id, data.option_groups);
    const changed = groupsChanged || !sameImage(existing, image.next) || differs(existing, fields);
    const source = keptSourceUpdatedAt(existing.source_updated_at, incoming);
    if (changed) env.catalog.updateProduct.run({ id: existing.id, ...fields, ...image.next, source_updated_at: source, updated_at: now });
    else if (source !== existing.source_updated_at && source !== null) env.catalog.setProductSourceUpdatedAt.run(source, existing.id);
    if (image.fetch) requestImageFetch(env, existing.id, image.fetch);
    return answer(200, existing.id, changed ? 'updated' : 'unchanged');
  });
}

/**
 * The product a PUT writes: the one with the code, or with `link_to_id` the panel product to link.
 * 409 `already_linked` when either side is already linked elsewhere; 422 for an id the store lacks.
 */
function findTarget(env: EnvContext, integration: IntegrationRecord, code: string, linkToId: string | undefined): ProductRow | undefined {
  const byCode = env.catalog.productByExternal.get(integration.id, code);
  if (linkToId === undefined || byCode?.id === linkToId) return byCode;
  if (byCode) throw ApiError.of('already_linked', undefined, 'El código externo ya está vinculado a otro producto.');
  const target = env.catalog.productById.get(linkToId);
  // Another store's product answers as an unknown one (spec: 404 never reveals which).
  if (!target || target.store_id !== integration.storeId) {
    throw ApiError.field('link_to_id', 'not_found', 'No existe un producto con ese id en este comercio.');
  }
  if (target.external_id !== null) throw ApiError.of('already_linked');
  return target;
}

/** PATCH /catalog/products/{external_id}: price, availability or state. */
export function patchProduct(env: EnvContext, integration: IntegrationRecord, externalId: string, input: unknown): UpsertResult {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(productPatch, input);
  const incoming = sourceTime(data.source_updated_at);
  return watchAcceptingOrders(env, integration.storeId, () => {
    const row = productOrNotFound(env, integration, code);
    if (isStale(row.source_updated_at, incoming)) return { id: row.id, external_id: code, result: 'ignored_stale' };
    const next = {
      price: data.price === undefined ? row.price : parseAmount(data.price),
      available: data.available === undefined ? row.available : Number(data.available),
      active: data.active === undefined ? row.active : Number(data.active),
    };
    return writeProduct(env, row, code, next, keptSourceUpdatedAt(row.source_updated_at, incoming));
  });
}

/** DELETE /catalog/products/{external_id}: deactivates, never deletes (past orders keep their copies). */
export function deactivateProduct(env: EnvContext, integration: IntegrationRecord, externalId: string): UpsertResult {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  return watchAcceptingOrders(env, integration.storeId, () => {
    const row = productOrNotFound(env, integration, code);
    return writeProduct(env, row, code, { active: 0 }, row.source_updated_at);
  });
}

function productOrNotFound(env: EnvContext, integration: IntegrationRecord, code: string): ProductRow {
  const row = env.catalog.productByExternal.get(integration.id, code);
  if (!row) throw ApiError.of('not_found', undefined, 'No existe un producto con ese código externo.');
  return row;
}

/** Writes `next` over the row when it changes something; `updated_at` moves only then. */
function writeProduct(env: EnvContext, row: ProductRow, code: string, next: Partial<ProductRow>, source: number | null): UpsertResult {
  const changed = differs(row, next);
  if (changed) env.catalog.updateProduct.run({ ...row, ...next, source_updated_at: source, updated_at: env.clock.now() });
  else if (source !== row.source_updated_at && source !== null) env.catalog.setProductSourceUpdatedAt.run(source, row.id);
  return { id: row.id, external_id: code, result: changed ? 'updated' : 'unchanged' };
}

function differs(row: ProductRow, next: Partial<ProductRow>): boolean {
  return Object.entries(next).some(([key, value]) => row[key as keyof ProductRow] !== value);
}
