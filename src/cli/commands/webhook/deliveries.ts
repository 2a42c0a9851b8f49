import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import type { DeliveriesOptions } from './index.js';
import { printDeliveries } from './show.js';

/** GET /webhook/deliveries. */
export async function webhookDeliveriesAction(options: DeliveriesOptions, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  const deliveries = await ctx.client().webhook.deliveries({ status: options.status, limit: options.limit });
  emit(ctx.json, deliveries, printDeliveries);
}
