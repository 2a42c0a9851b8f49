import type { Db } from './open.js';
import type {
  AttemptRecord, ClaimedDelivery, DeliveryRecord, OrderDelivery, WebhookRecord, WebhooksRepository,
} from '../../webhooks/repository.js';
import { prepareLazily } from './lazy-statement.js';

// One webhook per integration (spec: Webhook configuration); its deliveries form a persistent queue
// written in the same transaction as their event, so nothing is lost across a crash. One process
// owns the embedded database: a claim needs no lease (a restart recovers what was being sent).

interface WebhookRow {
  integration_id: string;
  store_id: string;
  url: string;
  events: string;
  active: number;
  paused: number;
  paused_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

const toWebhook = (r: WebhookRow): WebhookRecord => ({
  integrationId: r.integration_id,
  storeId: r.store_id,
  url: r.url,
  events: JSON.parse(r.events),
  active: r.active === 1,
  paused: r.paused === 1,
  pausedReason: r.paused_reason,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousExpiresAt: r.previous_expires_at,
  failingSince: r.failing_since,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const webhookParams = (w: WebhookRecord) => ({
  integration_id: w.integrationId,
  store_id: w.storeId,
  url: w.url,
  events: JSON.stringify(w.events),
  active: w.active ? 1 : 0,
  paused: w.paused ? 1 : 0,
  paused_reason: w.pausedReason,
  secret: w.secret,
  previous_secret: w.previousSecret,
  previous_expires_at: w.previousExpiresAt,
  failing_since: w.failingSince,
  created_at: w.createdAt,
  updated_at: w.updatedAt,
});

// The delivery columns named as the record's fields: rows are records with no copy.
const DELIVERY = `d.seq, d.id, d.integration_id AS integrationId, d.event_id AS eventId, d.event_type AS eventType, d.body, d.status,
  d.attempt_count AS attemptCount, d.next_attempt_at AS nextAttemptAt, d.created_at AS createdAt, d.updated_at AS updatedAt`;

interface AttemptRow {
  delivery_id: string;
  number: number;
  attempted_at: number;
  manual: number;
  succeeded: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

const toAttempt = (a: AttemptRow): AttemptRecord => ({
  deliveryId: a.delivery_id,
  number: a.number,
  attemptedAt: a.attempted_at,
  manual: a.manual === 1,
  succeeded: a.succeeded === 1,
  responseStatus: a.response_status,
  error: a.error,
  durationMs: a.duration_ms,
});

/** The embedded database has one owner: its claims are this process's, named by one token. */
const LOCAL_CLAIM = 'local';
const claimed = (d: DeliveryRecord): ClaimedDelivery => ({ ...d, status: 'delivering', claimToken: LOCAL_CLAIM });

export function sqliteWebhooks(db: Db): WebhooksRepository {
  const get = prepareLazily<[string], WebhookRow>(db, 'SELECT * FROM webhooks WHERE integration_id = ?');
  const upsert = prepareLazily(db,
    `INSERT INTO webhooks (integration_id, store_id, url, events, active, paused, paused_reason, secret, previous_secret,
       previous_expires_at, failing_since, created_at, updated_at)
     VALUES (@integration_id, @store_id, @url, @events, @active, @paused, @paused_reason, @secret, @previous_secret,
       @previous_expires_at, @failing_since, @created_at, @updated_at)
     ON CONFLICT (integration_id) DO UPDATE SET url = excluded.url, events = excluded.events, active = excluded.active,
       paused = excluded.paused, paused_reason = excluded.paused_reason, secret = excluded.secret,
       previous_secret = excluded.previous_secret, previous_expires_at = excluded.previous_expires_at,
       failing_since = excluded.failing_since, updated_at = excluded.updated_at`,
  );
  const insertDelivery = prepareLazily(db,
    `INSERT INTO webhook_deliveries (id, integration_id, event_id, event_type, body, status, next_attempt_at, created_at, updated_at)
     VALUES (@id, @integration_id, @event_id, @event_type, @body, 'pending', @now, @now, @now)`,
  );
  const deliveryById = prepareLazily<[string], DeliveryRecord>(db, `SELECT ${DELIVERY} FROM webhook_deliveries d WHERE d.id = ?`);
  const due = prepareLazily<{ now: number; limit: number }, DeliveryRecord>(db,
    `SELECT ${DELIVERY} FROM webhook_deliveries d JOIN webhooks w ON w.integration_id = d.integration_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND w.active = 1 AND w.paused = 0
     ORDER BY d.next_attempt_at, d.seq LIMIT @limit`,
  );
  const nextDue = prepareLazily<[], number | null>(db,
    `SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d JOIN webhooks w ON w.integration_id = d.integration_id
     WHERE d.status = 'pending' AND w.active = 1 AND w.paused = 0`,
  ).pluck();
  const claim = prepareLazily<{ id: string; from: string; now: number }>(db,
    "UPDATE webhook_deliveries SET status = 'delivering', updated_at = @now WHERE id = @id AND status = @from",
  );
  const settle = prepareLazily(db,
    `UPDATE webhook_deliveries SET status = @status, attempt_count = @attempt_count, next_attempt_at = @next_attempt_at,
       updated_at = @now WHERE id = @id AND status = 'delivering'`,
  );
  // A pending delivery always has next_attempt_at, and claiming keeps it: a `delivering` row
  // without one was a manual retry of a finished delivery. That goes back to its final state
  // (`succeeded` if any attempt succeeded, else `failed`) and never re-enters the schedule, which
  // would allow a tenth scheduled attempt.
  const recover = prepareLazily<{ now: number }>(db,
    `UPDATE webhook_deliveries SET updated_at = @now, status = CASE
       WHEN next_attempt_at IS NOT NULL THEN 'pending'
       WHEN EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id AND a.succeeded = 1) THEN 'succeeded'
       ELSE 'failed' END
     WHERE status = 'delivering'`,
  );
  const list = prepareLazily<{ integration_id: string; status: string | null; limit: number }, DeliveryRecord>(db,
    `SELECT ${DELIVERY} FROM webhook_deliveries d WHERE d.integration_id = @integration_id AND (@status IS NULL OR d.status = @status)
     ORDER BY d.seq DESC LIMIT @limit`,
  );
  const insertAttempt = prepareLazily(db,
    `INSERT INTO webhook_attempts (delivery_id, number, attempted_at, manual, succeeded, response_status, error, duration_ms)
     VALUES (@delivery_id, (SELECT COUNT(*) + 1 FROM webhook_attempts WHERE delivery_id = @delivery_id), @attempted_at, @manual,
       @succeeded, @response_status, @error, @duration_ms)`,
  );
  const attempts = prepareLazily<[string], AttemptRow>(db, 'SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY number');
  // The observer's reads: the deliveries of events about one order, with the time of their first success.
  const aboutOrder = prepareLazily<{ integration_id: string; order_id: string }, OrderDelivery>(db,
    `SELECT json_extract(d.body, '$.data.order.id') AS orderId, json_extract(d.body, '$.data.order.status') AS orderStatus,
       d.event_id AS eventId, d.event_type AS eventType, d.body, d.status,
       (SELECT MIN(a.attempted_at) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.succeeded = 1) AS succeededAt,
       (SELECT a.attempted_at + a.duration_ms FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.succeeded = 1 ORDER BY a.number LIMIT 1) AS answeredAt,
       (SELECT a.response_status FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.number DESC LIMIT 1) AS lastResponseStatus
     FROM webhook_deliveries d
     WHERE d.integration_id = @integration_id AND json_extract(d.body, '$.data.order.id') = @order_id
     ORDER BY d.seq`,
  );
  return {
    async get(integrationId) {
      const row = get.get(integrationId);
      return row ? toWebhook(row) : undefined;
    },
    async save(w) {
      upsert.run(webhookParams(w));
    },
    async insertDelivery(d, now) {
      insertDelivery.run({ id: d.id, integration_id: d.integrationId, event_id: d.eventId, event_type: d.eventType, body: d.body, now });
    },
    delivery: async (id) => deliveryById.get(id),
    list: async (integrationId, status, limit) => list.all({ integration_id: integrationId, status, limit }),
    async claimDue(now, limit) {
      // One statement after the other with nothing in between: one owner, no race.
      return due.all({ now, limit }).filter((d) => claim.run({ id: d.id, from: 'pending', now }).changes > 0).map(claimed);
    },
    async claim(id, from, now) {
      const d = deliveryById.get(id);
      if (!d || claim.run({ id, from, now }).changes === 0) return undefined;
      return claimed(d);
    },
    anyDue: async (now) => due.all({ now, limit: 1 }).length > 0,
    nextDueAt: async () => nextDue.get() ?? null,
    async settle(id, _token, next, now) {
      return settle.run({ id, status: next.status, attempt_count: next.attemptCount, next_attempt_at: next.nextAttemptAt, now }).changes > 0;
    },
    async insertAttempt(a) {
      insertAttempt.run({
        delivery_id: a.deliveryId, attempted_at: a.attemptedAt, manual: a.manual ? 1 : 0, succeeded: a.succeeded ? 1 : 0,
        response_status: a.responseStatus, error: a.error, duration_ms: a.durationMs,
      });
    },
    attempts: async (deliveryId) => attempts.all(deliveryId).map(toAttempt),
    recoverInterrupted: async (now) => recover.run({ now }).changes,
    // No other process can hold a claim here.
    expireLeases: async () => 0,
    deliveriesAboutOrder: async (integrationId, orderId) => aboutOrder.all({ integration_id: integrationId, order_id: orderId }),
  };
}

