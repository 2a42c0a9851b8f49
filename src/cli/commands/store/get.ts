import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import { printStore } from './show.js';

/** GET /store. */
export async function storeGetAction(command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().store.get(), printStore);
}
