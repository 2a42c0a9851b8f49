import type { EnvContext } from '../context.js';
import type { WebhookRecord, DeliveryRow } from '../data/webhooks.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';
import type { DeliveryRecord, Webhook } from '../../src/contract/webhooks.js';

/** The webhook of an integration as the panel shows it (url, active, paused, paused_reason), or null. */
export function webhookView(env: EnvContext, integrationId: string) {
  const w = env.webhooks.get(integrationId);
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

export function presentDelivery(env: EnvContext, d: DeliveryRow): DeliveryRecord {
  const attempts = env.webhooks.attempts(d.id).slice(-RECENT_ATTEMPTS);
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    attempts: attempts.map((a) => ({
      number: a.number,
      attempted_at: formatDate(a.attempted_at),
      manual: a.manual === 1,
      succeeded: a.succeeded === 1,
      response_status: a.response_status,
      error: a.error as DeliveryRecord['attempts'][number]['error'],
      duration_ms: a.duration_ms,
    })),
    next_attempt_at: d.status === 'pending' ? formatNullableDate(d.next_attempt_at) : null,
    created_at: formatDate(d.created_at),
    updated_at: formatDate(d.updated_at),
  };
}
