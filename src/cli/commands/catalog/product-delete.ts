import type { Command } from 'commander';
import { codeArg, runUpsert } from './single.js';

/** `catalog product delete <external_id>`: DELETE /catalog/products/{external_id} (deactivates). */
export async function productDeleteAction(code: string, command: Command): Promise<void> {
  const externalId = codeArg(code);
  await runUpsert(command, 'product', (ctx) => ctx.client().catalog.products.delete(externalId));
}
