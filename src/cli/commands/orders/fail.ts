import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import type { FailOptions } from './index.js';
import { printOrder } from './show.js';

/** POST /orders/{order_id}/import-failure. */
export async function ordersFailAction(id: string, options: FailOptions, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  const body = { code: options.code, message: options.message, retryable: Boolean(options.retryable) };
  emit(ctx.json, await ctx.client().orders.importFailure(id, body), printOrder);
}
