import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { bareHost, classifyAddress } from '../net/address-policy.js';
import { ApiError } from '../../src/contract/errors.js';
import { LIMITS } from '../../src/contract/limits.js';
import type { EnvContext } from '../context.js';
import type { WebhookRecord } from './repository.js';

const SECRET_OVERLAP_MS = LIMITS.webhookSecretOverlapHours * 3600_000;
export const PAUSED_REASON = 'continuous_failures';

/** A new `whsec_` signing secret: 32 random bytes, base64url. Always from the system's CSPRNG, even in a seeded run. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export interface WebhookChange {
  url?: string;
  events?: string[];
  active?: boolean;
}

/**
 * Creates or updates the one webhook of an integration (API PUT /webhook or the panel).
 * `active: true` also reactivates a paused webhook and ends its run of failures (DESIGN).
 */
export async function setWebhook(env: EnvContext, integrationId: string, change: WebhookChange): Promise<{ webhook: WebhookRecord; created: boolean }> {
  if (change.url !== undefined) refuseSelfTarget(env, change.url);
  return env.store.tx(async (tx) => {
    const now = env.clock.now();
    const existing = await tx.webhooks.get(integrationId);
    if (!existing) {
      const missing = (['url', 'events'] as const).filter((f) => change[f] === undefined);
      if (missing.length) {
        throw ApiError.validation(missing.map((field) => ({ field, code: 'required', message: 'El campo es obligatorio.' })));
      }
      const integration = (await tx.integrations.byId(integrationId))!;
      const webhook: WebhookRecord = {
        integrationId,
        storeId: integration.storeId,
        url: change.url!,
        events: change.events!,
        active: change.active ?? true,
        paused: false,
        pausedReason: null,
        secret: newSigningSecret(),
        previousSecret: null,
        previousExpiresAt: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.webhooks.save(webhook);
      return { webhook, created: true };
    }
    const webhook: WebhookRecord = {
      ...existing,
      url: change.url ?? existing.url,
      events: change.events ?? existing.events,
      active: change.active ?? existing.active,
      updatedAt: nextUpdate(existing, now),
    };
    if (change.active === true) Object.assign(webhook, { paused: false, pausedReason: null, failingSince: null });
    await tx.webhooks.save(webhook);
    return { webhook, created: false };
  });
}

/**
 * DESIGN, Safety of a local dev server — a webhook aimed at the emulator's own listening address and
 * port (`http://127.0.0.1:4010/_emulator/reset`) is refused when it is saved, where recognisable;
 * the sender refuses it again at connection time, whatever name it uses.
 */
function refuseSelfTarget(env: EnvContext, url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return; // the contract has already refused it
  }
  if (env.outbound.namesSelf(parsed)) {
    throw ApiError.validation([{ field: 'url', code: 'self_target', message: 'La URL apunta al propio emulador; use la dirección de su receptor.' }]);
  }
  // A shared sandbox never delivers to its own machine (DESIGN: --allow-loopback-targets lifts it).
  if (env.outbound.refusesHostOf(parsed)) {
    throw ApiError.validation([{ field: 'url', code: 'not_public', message: 'Este sandbox compartido no entrega a su propia máquina (localhost o sus direcciones); use la dirección pública de su receptor.' }]);
  }
  // An address written out is judged now by the same policy as at connection time (names wait for DNS).
  const host = bareHost(parsed.hostname);
  if (isIP(host) !== 0 && classifyAddress(host) === 'refused') {
    throw ApiError.validation([{ field: 'url', code: 'not_public', message: 'La URL debe ser pública (no una dirección privada o interna).' }]);
  }
}

/**
 * `updated_at` of a change: the clock's time, or one millisecond past the previous value when the
 * manual clock has not moved (as for orders), so that a client which remembers `updated_at` (the
 * CLI's `listen --configure`) sees every change, a secret rotation included.
 */
function nextUpdate(existing: WebhookRecord, now: number): number {
  return Math.max(now, existing.updatedAt + 1);
}

/** spec: Webhook delivery 5 — a new secret; the previous one keeps signing for 24 h of the clock. */
export async function rotateSecret(env: EnvContext, integrationId: string): Promise<WebhookRecord> {
  return env.store.tx(async (tx) => {
    const existing = await tx.webhooks.get(integrationId);
    if (!existing) throw ApiError.of('not_found');
    const now = env.clock.now();
    const webhook: WebhookRecord = {
      ...existing,
      secret: newSigningSecret(),
      previousSecret: existing.secret,
      previousExpiresAt: now + SECRET_OVERLAP_MS,
      updatedAt: nextUpdate(existing, now),
    };
    await tx.webhooks.save(webhook);
    return webhook;
  });
}

/** The secrets that sign a delivery sent at `now`: the current one, then the previous one during the overlap. */
export function signingSecrets(w: WebhookRecord, now: number): string[] {
  const previousValid = w.previousSecret !== null && w.previousExpiresAt !== null && w.previousExpiresAt > now;
  return previousValid ? [w.secret, w.previousSecret!] : [w.secret];
}
