import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import { printOrder } from './show.js';

/** GET /orders/{order_id}. */
export async function ordersGetAction(id: string, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().orders.get(id), printOrder);
}
