import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import { printDeliveries } from './show.js';

/** POST /webhook/deliveries/{delivery_id}/retry: one immediate extra attempt. */
export async function webhookRetryAction(id: string, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().webhook.retry(id), (d) => printDeliveries([d]));
}
