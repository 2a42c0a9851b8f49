import { ApiError } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import { productInput, productPatch, type UpsertResult } from '../../src/contract/catalog.js';
import { isId } from '../../src/contract/ids.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { IntegrationRecord } from '../stores/repository.js';
import { watchAcceptingOrders } from '../stores/change-store.js';
import { requestImageFetch } from '../images/queue.js';
import type { ProductRecord } from './repository.js';
import type { Upserted } from './categories.js';
import { assertCatalogManaged, checkExternalId, sourceTime } from './guard.js';
import { assertCodesFree, replaceOptionGroups } from './option-groups.js';
import { isStale, keptSourceUpdatedAt, planImage, sameImage, type ImageState } from './rules.js';

const NO_IMAGE: ImageState = { photoUrl: null, photoSource: null, imageStatus: 'none', imageRequestedUrl: null, imageError: null };

/**
 * PUT /catalog/products/{external_id}: creates (201) or replaces (200) the product. Omitted optional
 * fields go back to their defaults, except `image_url` (omitting it never deletes the photo) and
 * `position` (omitted keeps the current one: the merchant decides). `linkToId` links a product made
 * in the panel to this code instead of creating a duplicate.
 */
export async function upsertProduct(
  env: EnvContext, tx: Tx, integration: IntegrationRecord, externalId: string, input: unknown, linkToId?: string,
): Promise<Upserted> {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(productInput, input);
  if (linkToId !== undefined && !isId('product', linkToId)) {
    throw ApiError.field('link_to_id', 'invalid', 'Debe ser el id prd_ de un producto del comercio.');
  }
  const incoming = sourceTime(data.source_updated_at);
  return watchAcceptingOrders(tx, integration.storeId, async () => {
    const existing = await findTarget(tx, integration, code, linkToId);
    const answer = (status: 200 | 201, id: string, result: UpsertResult['result']): Upserted => ({ status, result: { id, external_id: code, result } });
    if (existing && isStale(existing.sourceUpdatedAt, incoming)) return answer(200, existing.id, 'ignored_stale');
    const category = await tx.catalog.categoryByExternal(integration.id, data.category_external_id);
    if (!category) {
      throw ApiError.field('category_external_id', 'not_found', 'No existe una categoría con ese código; envíe la categoría antes que sus productos.');
    }
    await assertCodesFree(tx, integration.id, existing?.id ?? null, data.option_groups);
    const now = env.clock.now();
    const fields = {
      integrationId: integration.id, externalId: code, categoryId: category.id, name: data.name, price: parseAmount(data.price),
      description: data.description ?? null, sku: data.sku ?? null, active: data.active, available: data.available,
      position: data.position ?? existing?.position ?? null,
    };
    const image = planImage(existing ?? NO_IMAGE, data.image_url, data.image_mode);
    if (!existing) {
      const id = env.ids.next('product');
      await tx.catalog.insertProduct({
        id, storeId: integration.storeId, ...fields, ...image.next, sourceUpdatedAt: incoming ?? null, createdAt: now, updatedAt: now,
      });
      await replaceOptionGroups(env, tx, integration.id, id, data.option_groups);
      if (image.fetch) requestImageFetch(env, tx, id, image.fetch);
      return answer(201, id, 'created');
    }
    const groupsChanged = await replaceOptionGroups(env, tx, integration.id, existing.id, data.option_groups);
    const changed = groupsChanged || !sameImage(existing, image.next) || differs(existing, fields);
    const source = keptSourceUpdatedAt(existing.sourceUpdatedAt, incoming);
    if (changed) await tx.catalog.updateProduct({ id: existing.id, ...fields, ...image.next, sourceUpdatedAt: source, updatedAt: now });
    else if (source !== existing.sourceUpdatedAt && source !== null) await tx.catalog.setProductSourceUpdatedAt(existing.id, source);
    if (image.fetch) requestImageFetch(env, tx, existing.id, image.fetch);
    return answer(200, existing.id, changed ? 'updated' : 'unchanged');
  });
}

/**
 * The product a PUT writes: the one with the code, or with `link_to_id` the panel product to link.
 * 409 `already_linked` when either side is already linked elsewhere; 422 for an id the store lacks.
 */
async function findTarget(tx: Tx, integration: IntegrationRecord, code: string, linkToId: string | undefined): Promise<ProductRecord | undefined> {
  const byCode = await tx.catalog.productByExternal(integration.id, code);
  if (linkToId === undefined || byCode?.id === linkToId) return byCode;
  if (byCode) throw ApiError.of('already_linked', undefined, 'El código externo ya está vinculado a otro producto.');
  const target = await tx.catalog.productById(linkToId);
  // Another store's product answers as an unknown one (spec: 404 never reveals which).
  if (!target || target.storeId !== integration.storeId) {
    throw ApiError.field('link_to_id', 'not_found', 'No existe un producto con ese id en este comercio.');
  }
  if (target.externalId !== null) throw ApiError.of('already_linked');
  return target;
}

/** PATCH /catalog/products/{external_id}: price, availability or state. */
export async function patchProduct(env: EnvContext, tx: Tx, integration: IntegrationRecord, externalId: string, input: unknown): Promise<UpsertResult> {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(productPatch, input);
  const incoming = sourceTime(data.source_updated_at);
  return watchAcceptingOrders(tx, integration.storeId, async () => {
    const row = await productOrNotFound(tx, integration, code);
    if (isStale(row.sourceUpdatedAt, incoming)) return { id: row.id, external_id: code, result: 'ignored_stale' };
    const next = {
      price: data.price === undefined ? row.price : parseAmount(data.price),
      available: data.available === undefined ? row.available : data.available,
      active: data.active === undefined ? row.active : data.active,
    };
    return writeProduct(env, tx, row, code, next, keptSourceUpdatedAt(row.sourceUpdatedAt, incoming));
  });
}

/** DELETE /catalog/products/{external_id}: deactivates, never deletes (past orders keep their copies). */
export async function deactivateProduct(env: EnvContext, tx: Tx, integration: IntegrationRecord, externalId: string): Promise<UpsertResult> {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  return watchAcceptingOrders(tx, integration.storeId, async () => {
    const row = await productOrNotFound(tx, integration, code);
    return writeProduct(env, tx, row, code, { active: false }, row.sourceUpdatedAt);
  });
}

async function productOrNotFound(tx: Tx, integration: IntegrationRecord, code: string): Promise<ProductRecord> {
  const row = await tx.catalog.productByExternal(integration.id, code);
  if (!row) throw ApiError.of('not_found', undefined, 'No existe un producto con ese código externo.');
  return row;
}

/** Writes `next` over the product when it changes something; `updated_at` moves only then. */
async function writeProduct(
  env: EnvContext, tx: Tx, row: ProductRecord, code: string, next: Partial<ProductRecord>, source: number | null,
): Promise<UpsertResult> {
  const changed = differs(row, next);
  if (changed) await tx.catalog.updateProduct({ ...row, ...next, sourceUpdatedAt: source, updatedAt: env.clock.now() });
  else if (source !== row.sourceUpdatedAt && source !== null) await tx.catalog.setProductSourceUpdatedAt(row.id, source);
  return { id: row.id, external_id: code, result: changed ? 'updated' : 'unchanged' };
}

function differs(row: ProductRecord, next: Partial<ProductRecord>): boolean {
  return Object.entries(next).some(([key, value]) => row[key as keyof ProductRecord] !== value);
}
