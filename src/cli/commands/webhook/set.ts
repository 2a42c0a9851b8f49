import type { Command } from 'commander';
import type { MerchantClient } from '../../../client/index.js';
import { resolveContext } from '../../context.js';
import { emit, printLine, errColors } from '../../output.js';
import type { SetOptions } from './index.js';
import { printWebhook } from './show.js';

/** The current event list, or null when no webhook exists yet. */
async function currentEvents(client: MerchantClient): Promise<string[] | null> {
  try {
    return (await client.webhook.get()).events;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  }
}

/**
 * PUT /webhook. Without `--events` an existing webhook keeps its list and a new one gets `*`.
 * The signing secret is in the answer only on creation: printed then, once.
 */
export async function webhookSetAction(options: SetOptions, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  const client = ctx.client();
  const events = options.events ?? (await currentEvents(client)) ?? ['*'];
  const webhook = await client.webhook.put({ url: options.url, events });
  emit(ctx.json, webhook, (w) => {
    printWebhook(w);
    if (w.signing_secret) {
      printLine(`Signing secret: ${w.signing_secret}`);
      process.stderr.write(errColors().yellow('This secret is shown once: store it now (e.g. MERCHANT_KIT_WEBHOOK_SECRET for merchant-kit listen).\n'));
    }
  });
}
