import type { Command } from 'commander';
import { categoryInput } from '../../../contract/catalog.js';
import { codeArg, runUpsert, validOrUsage } from './single.js';

/** `catalog category set <external_id> --name N [--position P] [--inactive]`: PUT /catalog/categories/{external_id}. */
export async function categorySetAction(code: string, options: { name: string; position?: number; inactive?: boolean }, command: Command): Promise<void> {
  const externalId = codeArg(code);
  const body = validOrUsage(categoryInput, { name: options.name, position: options.position, active: !options.inactive }, 'category', { name: '--name', position: '--position' });
  await runUpsert(command, 'category', (ctx) => ctx.client().catalog.categories.put(externalId, body));
}
