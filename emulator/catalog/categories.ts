import { ApiError } from '../../src/contract/errors.js';
import { categoryInput, type UpsertResult } from '../../src/contract/catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { IntegrationRecord } from '../data/integrations.js';
import { assertCatalogManaged, checkExternalId, sourceTime } from './guard.js';
import { isStale, keptSourceUpdatedAt } from './rules.js';
import { watchAcceptingOrders } from './store-watch.js';

export type Upserted = { status: 200 | 201; result: UpsertResult };

/**
 * PUT /catalog/categories/{external_id}: creates (201) or replaces (200) the category. An omitted
 * `position` keeps the current one; `active` goes back to its default (true).
 */
export function upsertCategory(env: EnvContext, integration: IntegrationRecord, externalId: string, input: unknown): Upserted {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(categoryInput, input);
  const incoming = sourceTime(data.source_updated_at);
  return watchAcceptingOrders(env, integration.storeId, () => {
    const now = env.clock.now();
    const row = env.catalog.categoryByExternal.get(integration.id, code);
    if (!row) {
      const id = env.ids.next('category');
      env.catalog.insertCategory.run({
        id, store_id: integration.storeId, integration_id: integration.id, external_id: code, name: data.name,
        position: data.position ?? null, active: data.active ? 1 : 0, source_updated_at: incoming ?? null, created_at: now, updated_at: now,
      });
      return { status: 201, result: { id, external_id: code, result: 'created' } };
    }
    const answer = (result: UpsertResult['result']): Upserted => ({ status: 200, result: { id: row.id, external_id: code, result } });
    if (isStale(row.source_updated_at, incoming)) return answer('ignored_stale');
    const next = { name: data.name, position: data.position ?? row.position, active: data.active ? 1 : 0 };
    // The same rule as DELETE: a category with active products cannot be switched off (nothing changes).
    if (row.active === 1 && next.active === 0 && env.catalog.activeProductsInCategory.get(row.id)!.n > 0) {
      throw ApiError.of('category_not_empty');
    }
    const source = keptSourceUpdatedAt(row.source_updated_at, incoming);
    const changed = next.name !== row.name || next.position !== row.position || next.active !== row.active;
    if (changed) env.catalog.updateCategory.run({ id: row.id, ...next, source_updated_at: source, updated_at: now });
    else if (source !== row.source_updated_at && source !== null) env.catalog.setCategorySourceUpdatedAt.run(source, row.id);
    return answer(changed ? 'updated' : 'unchanged');
  });
}

/** DELETE /catalog/categories/{external_id}: deactivates, never deletes; 409 while it has active products. */
export function deactivateCategory(env: EnvContext, integration: IntegrationRecord, externalId: string): UpsertResult {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  return watchAcceptingOrders(env, integration.storeId, () => {
    const row = env.catalog.categoryByExternal.get(integration.id, code);
    if (!row) throw ApiError.of('not_found', undefined, 'No existe una categoría con ese código externo.');
    const result = { id: row.id, external_id: code };
    if (row.active === 0) return { ...result, result: 'unchanged' };
    if (env.catalog.activeProductsInCategory.get(row.id)!.n > 0) throw ApiError.of('category_not_empty');
    env.catalog.updateCategory.run({ ...row, active: 0, updated_at: env.clock.now() });
    return { ...result, result: 'updated' };
  });
}
