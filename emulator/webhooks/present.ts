import type { EnvContext } from '../context.js';
import type { WebhookRecord, DeliveryRecord as StoredDelivery, WebhooksRepository } from './repository.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';
import type { DeliveryRecord, Webhook } from '../../src/contract/webhooks.js';

/** The webhook of an integration as the panel shows it (url, active, paused, paused_reason), or null. */
export async function webhookView(env: EnvContext, integrationId: string) {
  const w = await env.store.webhooks.get(integrationId);
  if (!w) return null;
  const { url, events, active, paused, paused_reason } = presentWebhook(w);
  return {
    url, events, active, paused, paused_reason,
    // DESIGN: the panel shows a notice when the webhook was paused.
    notice: w.paused ? 'El webhook se pausó tras 72 h de entregas fallidas; reactívelo cuando el receptor funcione.' : null,
  };
}

/** spec: Webhook configuration — never the secret, except `withSecret` in the 201 at creation. */
export function presentWebhook(w: WebhookRecord, withSecret = false): Webhook {
  return {
    url: w.url,
    events: w.events,
    active: w.active,
    paused: w.paused,
    paused_reason: w.pausedReason,
    ...(withSecret ? { signing_secret: w.secret } : {}),
    created_at: formatDate(w.createdAt),
    updated_at: formatDate(w.updatedAt),
  };
}

/** How many attempts a record shows ("recent attempts"). */
const RECENT_ATTEMPTS = 20;

export async function presentDelivery(webhooks: WebhooksRepository, d: StoredDelivery): Promise<DeliveryRecord> {
  const attempts = (await webhooks.attempts(d.id)).slice(-RECENT_ATTEMPTS);
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attemptCount,
    attempts: attempts.map((a) => ({
      number: a.number,
      attempted_at: formatDate(a.attemptedAt),
      manual: a.manual,
      succeeded: a.succeeded,
      response_status: a.responseStatus,
      error: a.error as DeliveryRecord['attempts'][number]['error'],
      duration_ms: a.durationMs,
    })),
    next_attempt_at: d.status === 'pending' ? formatNullableDate(d.nextAttemptAt) : null,
    created_at: formatDate(d.createdAt),
    updated_at: formatDate(d.updatedAt),
  };
}
