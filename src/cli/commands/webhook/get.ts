import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { withHint } from '../../errors.js';
import { emit } from '../../output.js';
import { printWebhook } from './show.js';

/** GET /webhook (404 not_found when none is configured: the hint says how to set one). */
export async function webhookGetAction(command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  try {
    emit(ctx.json, await ctx.client().webhook.get(), printWebhook);
  } catch (error) {
    const { ApiError } = await import('../../../client/errors.js');
    if (error instanceof ApiError && error.status === 404 && error.code === 'not_found') {
      throw withHint(error, 'this integration has no webhook yet: set one with "merchant-kit webhook set --url URL", or run "merchant-kit listen --configure" to receive on this machine');
    }
    throw error;
  }
}
