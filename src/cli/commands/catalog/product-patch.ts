import type { Command } from 'commander';
import { productPatch } from '../../../contract/catalog.js';
import { codeArg, runUpsert, validOrUsage } from './single.js';

/** `catalog product patch <external_id> [--price] [--available true|false] [--active true|false]`: PATCH /catalog/products/{external_id}. */
export async function productPatchAction(code: string, options: { price?: string; available?: boolean; active?: boolean }, command: Command): Promise<void> {
  const externalId = codeArg(code);
  const body = validOrUsage(productPatch, { price: options.price, available: options.available, active: options.active }, 'patch (give --price, --available or --active)', {
    price: '--price', available: '--available', active: '--active',
  });
  await runUpsert(command, 'product', (ctx) => ctx.client().catalog.products.patch(externalId, body));
}
