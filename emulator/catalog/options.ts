import { ApiError } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import { optionPatch, type UpsertResult } from '../../src/contract/catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { IntegrationRecord } from '../data/integrations.js';
import { assertCatalogManaged, checkExternalId } from './guard.js';

/** PATCH /catalog/options/{external_id}: price and/or availability; the product's `updated_at` moves with it. */
export function patchOption(env: EnvContext, integration: IntegrationRecord, externalId: string, input: unknown): UpsertResult {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(optionPatch, input);
  return env.tx(() => {
    const row = env.catalog.optionByExternal.get(integration.id, code);
    if (!row) throw ApiError.of('not_found', undefined, 'No existe una opción con ese código externo.');
    const next = {
      price: data.price === undefined ? row.price : parseAmount(data.price),
      available: data.available === undefined ? row.available : Number(data.available),
    };
    const changed = next.price !== row.price || next.available !== row.available;
    if (changed) {
      env.catalog.patchOption.run({ id: row.id, ...next });
      env.catalog.touchProduct.run(env.clock.now(), row.product_id);
    }
    return { id: row.id, external_id: code, result: changed ? 'updated' : 'unchanged' };
  });
}
