import { ApiError } from '../../../client/errors.js';
import type { MerchantClient } from '../../../client/merchant-client.js';

/**
 * Points the integration's webhook at `url`, keeping its event list (every type when it is new).
 * Returns the signing secret when the webhook was created (the only answer that carries it).
 */
export async function configureWebhook(client: MerchantClient, url: string): Promise<{ created: boolean; secret: string | null }> {
  let events: string[] | null = null;
  try {
    events = (await client.webhook.get()).events;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
  const answer = await client.webhook.put({ url, events: (events ?? ['*']) as never });
  const secret = (answer as { signing_secret?: string }).signing_secret ?? null;
  return { created: events === null, secret };
}
