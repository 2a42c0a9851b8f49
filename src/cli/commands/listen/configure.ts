import { ApiError } from '../../../client/errors.js';
import type { MerchantClient } from '../../../client/merchant-client.js';
import type { Webhook } from '../../../contract/webhooks.js';
import type { KeptSecret } from './kept-secret.js';

/** Where the secret the listener verifies with came from. */
export type SecretSource = 'created' | 'rotated' | 'kept' | 'given';

/** What `--configure` did to the webhook, and the secret to verify with. */
export interface ConfigureResult {
  created: boolean;
  events: string[];
  secret: string;
  source: SecretSource;
}

export interface ConfigureOptions {
  url: string;
  /** `--events`: the webhook's new list; without it an existing webhook keeps its list and a new one gets `*`. */
  events?: string[];
  /** A secret given for this run (`--secret-stdin`, `--secret`, `MERCHANT_KIT_WEBHOOK_SECRET`). */
  given: string | null;
  kept: KeptSecret;
}

async function currentWebhook(client: MerchantClient): Promise<Webhook | null> {
  try {
    return await client.webhook.get();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Points the integration's webhook at `url` on every run, as `stripe listen` does. A new webhook's
 * secret comes in its creation answer. An existing one keeps the secret this listener kept from its
 * previous run when nobody changed the webhook since (same `updated_at`); otherwise (first run on
 * this machine, a rotation or change elsewhere) the secret is rotated: the previous one still signs
 * for 24 h, so a listener or app that has it is not cut off at once. A secret given for the run is
 * used as it is. The secret in use is kept (encrypted) for the next run, with the webhook's new
 * `updated_at`.
 */
export async function configureWebhook(client: MerchantClient, o: ConfigureOptions): Promise<ConfigureResult> {
  const current = await currentWebhook(client);
  if (!current) {
    const created = await client.webhook.put({ url: o.url, events: (o.events ?? ['*']) as never });
    const secret = created.signing_secret!;
    o.kept.save(secret, created.updated_at);
    return { created: true, events: created.events, secret, source: 'created' };
  }
  const kept = o.given === null ? o.kept.load(current.updated_at) : null;
  // The URL first: a URL the API refuses leaves the secret as it was.
  let updated = await client.webhook.put({ url: o.url, events: (o.events ?? current.events) as never });
  if (o.given !== null) return { created: false, events: updated.events, secret: o.given, source: 'given' };
  let secret = kept;
  let source: SecretSource = 'kept';
  if (secret === null) {
    secret = (await client.webhook.rotateSecret()).signing_secret;
    source = 'rotated';
    updated = await client.webhook.get();
  }
  o.kept.save(secret, updated.updated_at);
  return { created: false, events: updated.events, secret, source };
}
