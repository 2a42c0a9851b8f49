import { ApiError } from '../../src/contract/errors.js';
import { categoryInput, type UpsertResult } from '../../src/contract/catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { IntegrationRecord } from '../stores/repository.js';
import { watchAcceptingOrders } from '../stores/change-store.js';
import { assertCatalogManaged, checkExternalId, sourceTime } from './guard.js';
import { isStale, keptSourceUpdatedAt } from './rules.js';

export type Upserted = { status: 200 | 201; result: UpsertResult };

/**
 * PUT /catalog/categories/{external_id}: creates (201) or replaces (200) the category. An omitted
 * `position` keeps the current one; `active` goes back to its default (true).
 */
export async function upsertCategory(env: EnvContext, tx: Tx, integration: IntegrationRecord, externalId: string, input: unknown): Promise<Upserted> {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(categoryInput, input);
  const incoming = sourceTime(data.source_updated_at);
  return watchAcceptingOrders(tx, integration.storeId, async () => {
    const now = env.clock.now();
    const row = await tx.catalog.categoryByExternal(integration.id, code);
    if (!row) {
      const id = env.ids.next('category');
      await tx.catalog.insertCategory({
        id, storeId: integration.storeId, integrationId: integration.id, externalId: code, name: data.name,
        position: data.position ?? null, active: data.active, sourceUpdatedAt: incoming ?? null, createdAt: now, updatedAt: now,
      });
      return { status: 201, result: { id, external_id: code, result: 'created' } };
    }
    const answer = (result: UpsertResult['result']): Upserted => ({ status: 200, result: { id: row.id, external_id: code, result } });
    if (isStale(row.sourceUpdatedAt, incoming)) return answer('ignored_stale');
    const next = { name: data.name, position: data.position ?? row.position, active: data.active };
    // The same rule as DELETE: a category with active products cannot be switched off (nothing changes).
    if (row.active && !next.active && (await tx.catalog.activeProductsInCategory(row.id)) > 0) {
      throw ApiError.of('category_not_empty');
    }
    const source = keptSourceUpdatedAt(row.sourceUpdatedAt, incoming);
    const changed = next.name !== row.name || next.position !== row.position || next.active !== row.active;
    if (changed) await tx.catalog.updateCategory({ id: row.id, ...next, sourceUpdatedAt: source, updatedAt: now });
    else if (source !== row.sourceUpdatedAt && source !== null) await tx.catalog.setCategorySourceUpdatedAt(row.id, source);
    return answer(changed ? 'updated' : 'unchanged');
  });
}

/** DELETE /catalog/categories/{external_id}: deactivates, never deletes; 409 while it has active products. */
export async function deactivateCategory(env: EnvContext, tx: Tx, integration: IntegrationRecord, externalId: string): Promise<UpsertResult> {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  return watchAcceptingOrders(tx, integration.storeId, async () => {
    const row = await tx.catalog.categoryByExternal(integration.id, code);
    if (!row) throw ApiError.of('not_found', undefined, 'No existe una categoría con ese código externo.');
    const result = { id: row.id, external_id: code };
    if (!row.active) return { ...result, result: 'unchanged' };
    if ((await tx.catalog.activeProductsInCategory(row.id)) > 0) throw ApiError.of('category_not_empty');
    await tx.catalog.updateCategory({ ...row, active: false, updatedAt: env.clock.now() });
    return { ...result, result: 'updated' };
  });
}
