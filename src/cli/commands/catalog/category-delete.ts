import type { Command } from 'commander';
import { codeArg, runUpsert } from './single.js';

/** `catalog category delete <external_id>`: DELETE /catalog/categories/{external_id} (deactivates). */
export async function categoryDeleteAction(code: string, command: Command): Promise<void> {
  const externalId = codeArg(code);
  await runUpsert(command, 'category', (ctx) => ctx.client().catalog.categories.delete(externalId));
}
