import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import { printWebhook } from './show.js';

/** GET /webhook (404 not_found when none is configured). */
export async function webhookGetAction(command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().webhook.get(), printWebhook);
}
