import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import { printStore } from './show.js';

/** PATCH /store `{accepting_orders}`: `store open` and `store pause`. */
export async function storeSwitchAction(command: Command, open: boolean): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().store.patch({ accepting_orders: open }), printStore);
}
