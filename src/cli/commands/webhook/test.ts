import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit, printLine } from '../../output.js';

/** POST /webhook/test. */
export async function webhookTestAction(command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().webhook.test(), (r) =>
    printLine(r.queued ? 'A webhook.test event was queued for delivery.' : 'The test event was not queued (the webhook is inactive or paused).'),
  );
}
