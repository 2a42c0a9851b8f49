import type { Command } from 'commander';
import { optionPatch } from '../../../contract/catalog.js';
import { codeArg, runUpsert, validOrUsage } from './single.js';

/** `catalog option patch <external_id> [--price] [--available true|false]`: PATCH /catalog/options/{external_id}. */
export async function optionPatchAction(code: string, options: { price?: string; available?: boolean }, command: Command): Promise<void> {
  const externalId = codeArg(code);
  const body = validOrUsage(optionPatch, { price: options.price, available: options.available }, 'patch (give --price, --available or both)', {
    price: '--price', available: '--available',
  });
  await runUpsert(command, 'option', (ctx) => ctx.client().catalog.options.patch(externalId, body));
}
