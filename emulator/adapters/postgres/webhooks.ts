import type { Environment } from '../../../src/contract/store.js';
import type { DeliveryStatus } from '../../../src/contract/webhooks.js';
import type { AttemptRecord, DeliveryRecord, OrderDelivery, WebhookRecord, WebhooksRepository } from '../../webhooks/repository.js';
import { statement, tableIn, type Conn } from './conn.js';
import { claimsSql, pgClaims } from './webhook-claims.js';
import { prefixed, unprefixed } from './stores.js';

// One webhook per integration (spec: Webhook configuration); its deliveries form a persistent queue
// written in the same transaction as their event. Claims (which process makes an attempt) are in
// webhook-claims.ts. Every write is a `webhooks` change naming its store.

const WEBHOOK = `integration_id AS "integrationId", store_id AS "storeId", url, events, active, paused, paused_reason AS "pausedReason",
  secret, previous_secret AS "previousSecret", previous_expires_at AS "previousExpiresAt", failing_since AS "failingSince",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A webhook `w`'s columns under the prefix `w_` (`webhookOf`: undefined when the row has none). */
export const WEBHOOK_COLUMNS = () => prefixed('w.', 'w_', WEBHOOK);

export function webhookOf(row: Record<string, unknown>): WebhookRecord | undefined {
  if (row.w_integrationId === null || row.w_integrationId === undefined) return undefined;
  const w = unprefixed<WebhookRow>(row, 'w_');
  return { ...w, events: JSON.parse(w.events) };
}

/** The delivery columns named as the record's fields: rows are records. */
export const DELIVERY = `d.seq, d.id, d.integration_id AS "integrationId", d.event_id AS "eventId", d.event_type AS "eventType", d.body,
  d.status, d.attempt_count AS "attemptCount", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt", d.updated_at AS "updatedAt"`;

const ATTEMPT = `delivery_id AS "deliveryId", number, attempted_at AS "attemptedAt", manual, succeeded, response_status AS "responseStatus",
  error, duration_ms AS "durationMs"`;

export function webhooksSql(schema: string) {
  const t = tableIn(schema);
  const storeOf = (integration: string) => `(SELECT store_id FROM ${t('integrations')} WHERE id = ${integration})`;
  return {
    claims: claimsSql(schema),
    get: statement(`SELECT ${WEBHOOK} FROM ${t('webhooks')} WHERE integration_id = $1`),
    save: statement(
      `INSERT INTO ${t('webhooks')} (integration_id, store_id, url, events, active, paused, paused_reason, secret, previous_secret,
         previous_expires_at, failing_since, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (integration_id) DO UPDATE SET url = excluded.url, events = excluded.events, active = excluded.active,
         paused = excluded.paused, paused_reason = excluded.paused_reason, secret = excluded.secret,
         previous_secret = excluded.previous_secret, previous_expires_at = excluded.previous_expires_at,
         failing_since = excluded.failing_since, updated_at = excluded.updated_at`,
    ),
    // A queue position per delivery, from the same counter table as the feed's (events.ts).
    insertDelivery: statement(
      `WITH position AS (
         INSERT INTO ${t('sequences')} AS s (name, seq) VALUES ('webhook_deliveries', 1)
         ON CONFLICT (name) DO UPDATE SET seq = s.seq + 1 RETURNING seq
       )
       INSERT INTO ${t('webhook_deliveries')} (seq, id, integration_id, event_id, event_type, body, status, next_attempt_at, created_at, updated_at)
       SELECT seq, $1, $2, $3, $4, $5, 'pending', $6, $6, $6 FROM position
       RETURNING ${storeOf('$2')} AS "storeId"`,
    ),
    delivery: statement(`SELECT ${DELIVERY} FROM ${t('webhook_deliveries')} d WHERE d.id = $1`),
    list: statement(
      `SELECT ${DELIVERY} FROM ${t('webhook_deliveries')} d WHERE d.integration_id = $1 AND ($2::text IS NULL OR d.status = $2::text)
       ORDER BY d.seq DESC LIMIT $3`,
    ),
    anyDue: statement(
      `SELECT 1 FROM ${t('webhook_deliveries')} d JOIN ${t('webhooks')} w ON w.integration_id = d.integration_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.active AND NOT w.paused LIMIT 1`,
    ),
    nextDue: statement(
      `SELECT MIN(d.next_attempt_at) AS at FROM ${t('webhook_deliveries')} d JOIN ${t('webhooks')} w ON w.integration_id = d.integration_id
       WHERE d.status = 'pending' AND w.active AND NOT w.paused`,
    ),
    // Two attempts of one delivery never run at once (claims): the count is this one's number.
    insertAttempt: statement(
      `INSERT INTO ${t('webhook_attempts')} (delivery_id, number, attempted_at, manual, succeeded, response_status, error, duration_ms)
       VALUES ($1, (SELECT COUNT(*) + 1 FROM ${t('webhook_attempts')} WHERE delivery_id = $1), $2, $3, $4, $5, $6, $7)
       RETURNING (SELECT i.store_id FROM ${t('webhook_deliveries')} d JOIN ${t('integrations')} i ON i.id = d.integration_id WHERE d.id = $1) AS "storeId"`,
    ),
    attempts: statement(`SELECT ${ATTEMPT} FROM ${t('webhook_attempts')} WHERE delivery_id = $1 ORDER BY number`),
    // The observer's read: the deliveries of events about one order, with the time of their first success.
    aboutOrder: statement(
      `SELECT b.j #>> '{data,order,id}' AS "orderId", b.j #>> '{data,order,status}' AS "orderStatus",
         d.event_id AS "eventId", d.event_type AS "eventType", d.body, d.status,
         (SELECT MIN(a.attempted_at) FROM ${t('webhook_attempts')} a WHERE a.delivery_id = d.id AND a.succeeded) AS "succeededAt",
         (SELECT a.attempted_at + a.duration_ms FROM ${t('webhook_attempts')} a WHERE a.delivery_id = d.id AND a.succeeded ORDER BY a.number LIMIT 1) AS "answeredAt",
         (SELECT a.response_status FROM ${t('webhook_attempts')} a WHERE a.delivery_id = d.id ORDER BY a.number DESC LIMIT 1) AS "lastResponseStatus"
       FROM ${t('webhook_deliveries')} d, LATERAL (SELECT d.body::json AS j) b
       WHERE d.integration_id = $1 AND b.j #>> '{data,order,id}' = $2
       ORDER BY d.seq`,
    ),
  };
}

type WebhookRow = Omit<WebhookRecord, 'events'> & { events: string };

export function pgWebhooks(conn: Conn, s: ReturnType<typeof webhooksSql>, environment: Environment): WebhooksRepository {
  const changed = (storeId: string | null, config: boolean, told?: boolean) => conn.changed({ topic: 'webhooks', environment, storeId, config }, told);
  // A settlement's notice, sent by its own statement on the pool (the delivery's store filled in there).
  const settled = conn.notice?.({ topic: 'webhooks', environment, storeId: null, config: false });
  const claims = pgClaims(conn, s.claims, changed, settled);
  return {
    ...claims,
    async get(integrationId) {
      const [row] = await conn.rows<WebhookRow>(s.get, [integrationId]);
      return row ? { ...row, events: JSON.parse(row.events) } : undefined;
    },
    async save(w) {
      await conn.run(s.save, [
        w.integrationId, w.storeId, w.url, JSON.stringify(w.events), w.active, w.paused, w.pausedReason, w.secret, w.previousSecret,
        w.previousExpiresAt, w.failingSince, w.createdAt, w.updatedAt,
      ]);
      changed(w.storeId, true);
    },
    async insertDelivery(d, now) {
      const [row] = await conn.rows<{ storeId: string | null }>(s.insertDelivery, [d.id, d.integrationId, d.eventId, d.eventType, d.body, now]);
      changed(row?.storeId ?? null, false);
    },
    delivery: async (id) => (await conn.rows<DeliveryRecord>(s.delivery, [id]))[0],
    list: (integrationId, status: DeliveryStatus | null, limit) => conn.rows<DeliveryRecord>(s.list, [integrationId, status, limit]),
    anyDue: async (now) => (await conn.rows(s.anyDue, [now])).length > 0,
    nextDueAt: async () => (await conn.rows<{ at: number | null }>(s.nextDue))[0]?.at ?? null,
    async insertAttempt(a) {
      const [row] = await conn.rows<{ storeId: string | null }>(s.insertAttempt, [
        a.deliveryId, a.attemptedAt, a.manual, a.succeeded, a.responseStatus, a.error, a.durationMs,
      ]);
      changed(row?.storeId ?? null, false);
    },
    attempts: (deliveryId) => conn.rows<AttemptRecord>(s.attempts, [deliveryId]),
    deliveriesAboutOrder: (integrationId, orderId) => conn.rows<OrderDelivery>(s.aboutOrder, [integrationId, orderId]),
  };
}
