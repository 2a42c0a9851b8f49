import { ApiError } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import { optionPatch, type UpsertResult } from '../../src/contract/catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { IntegrationRecord } from '../stores/repository.js';
import { assertCatalogManaged, checkExternalId } from './guard.js';

/** PATCH /catalog/options/{external_id}: price and/or availability; the product's `updated_at` moves with it. */
export async function patchOption(env: EnvContext, tx: Tx, integration: IntegrationRecord, externalId: string, input: unknown): Promise<UpsertResult> {
  assertCatalogManaged(integration);
  const code = checkExternalId(externalId);
  const data = parseOrThrow(optionPatch, input);
  const row = await tx.catalog.optionByExternal(integration.id, code);
  if (!row) throw ApiError.of('not_found', undefined, 'No existe una opción con ese código externo.');
  const next = {
    price: data.price === undefined ? row.price : parseAmount(data.price),
    available: data.available === undefined ? row.available : data.available,
  };
  const changed = next.price !== row.price || next.available !== row.available;
  if (changed) {
    await tx.catalog.patchOption({ id: row.id, ...next });
    await tx.catalog.touchProduct(row.productId, env.clock.now());
  }
  return { id: row.id, external_id: code, result: changed ? 'updated' : 'unchanged' };
}
