import type { Db } from '../store/sqlite/open.js';
import type { DeliveryStatus } from '../../src/contract/webhooks.js';

export interface WebhookRecord {
  integrationId: string;
  storeId: string;
  url: string;
  events: string[];
  active: boolean;
  paused: boolean;
  pausedReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousExpiresAt: number | null;
  /** Start of the current unbroken run of failed attempts (DESIGN: pause after 72 h). */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

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

export interface DeliveryRow {
  seq: number;
  id: string;
  integration_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  attempted_at: number;
  manual: number;
  succeeded: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

export function createWebhookStatements(db: Db) {
  const get = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE integration_id = ?');
  const upsert = db.prepare(
    `INSERT INTO webhooks (integration_id, store_id, url, events, active, paused, paused_reason, secret, previous_secret,
       previous_expires_at, failing_since, created_at, updated_at)
     VALUES (@integration_id, @store_id, @url, @events, @active, @paused, @paused_reason, @secret, @previous_secret,
       @previous_expires_at, @failing_since, @created_at, @updated_at)
     ON CONFLICT (integration_id) DO UPDATE SET url = excluded.url, events = excluded.events, active = excluded.active,
       paused = excluded.paused, paused_reason = excluded.paused_reason, secret = excluded.secret,
       previous_secret = excluded.previous_secret, previous_expires_at = excluded.previous_expires_at,
       failing_since = excluded.failing_since, updated_at = excluded.updated_at`,
  );
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, integration_id, event_id, event_type, body, status, next_attempt_at, created_at, updated_at)
     VALUES (@id, @integration_id, @event_id, @event_type, @body, 'pending', @now, @now, @now)`,
  );
  const deliveryById = db.prepare<[string], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?');
  const due = db.prepare<{ now: number; limit: number }, DeliveryRow>(
    `SELECT d.* FROM webhook_deliveries d JOIN webhooks w ON w.integration_id = d.integration_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND w.active = 1 AND w.paused = 0
     ORDER BY d.next_attempt_at, d.seq LIMIT @limit`,
  );
  const nextDue = db.prepare<[], { at: number | null }>(
    `SELECT MIN(d.next_attempt_at) AS at FROM webhook_deliveries d JOIN webhooks w ON w.integration_id = d.integration_id
     WHERE d.status = 'pending' AND w.active = 1 AND w.paused = 0`,
  );
  const claim = db.prepare<{ id: string; from: string; now: number }>(
    "UPDATE webhook_deliveries SET status = 'delivering', updated_at = @now WHERE id = @id AND status = @from",
  );
  const settle = db.prepare(
    `UPDATE webhook_deliveries SET status = @status, attempt_count = @attempt_count, next_attempt_at = @next_attempt_at,
       updated_at = @now WHERE id = @id`,
  );
  // A pending delivery always has next_attempt_at, and claiming keeps it: a `delivering` row
  // without one was a manual retry of a finished delivery. That goes back to its final state
  // (`succeeded` if any attempt succeeded, else `failed`) and never re-enters the schedule, which
  // would allow a tenth scheduled attempt.
  const recover = db.prepare<{ now: number }>(
    `UPDATE webhook_deliveries SET updated_at = @now, status = CASE
       WHEN next_attempt_at IS NOT NULL THEN 'pending'
       WHEN EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id AND a.succeeded = 1) THEN 'succeeded'
       ELSE 'failed' END
     WHERE status = 'delivering'`,
  );
  const list = db.prepare<{ integration_id: string; status: string | null; limit: number }, DeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE integration_id = @integration_id AND (@status IS NULL OR status = @status)
     ORDER BY seq DESC LIMIT @limit`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (delivery_id, number, attempted_at, manual, succeeded, response_status, error, duration_ms)
     VALUES (@delivery_id, (SELECT COUNT(*) + 1 FROM webhook_attempts WHERE delivery_id = @delivery_id), @attempted_at, @manual,
       @succeeded, @response_status, @error, @duration_ms)`,
  );
  const attempts = db.prepare<[string], AttemptRow>('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY number');

  return {
    get: (integrationId: string) => {
      const row = get.get(integrationId);
      return row ? toWebhook(row) : undefined;
    },
    save: (w: WebhookRecord) => void upsert.run(webhookParams(w)),
    insertDelivery: (d: { id: string; integrationId: string; eventId: string; eventType: string; body: string }, now: number) =>
      void insertDelivery.run({ id: d.id, integration_id: d.integrationId, event_id: d.eventId, event_type: d.eventType, body: d.body, now }),
    delivery: (id: string) => deliveryById.get(id),
    /** Pending deliveries due at `now` whose webhook is active and not paused, oldest first. */
    due: (now: number, limit: number) => due.all({ now, limit }),
    nextDueAt: () => nextDue.get()?.at ?? null,
    /** Marks a delivery as being sent; false if another sender got it first. */
    claim: (id: string, from: DeliveryStatus, now: number) => claim.run({ id, from, now }).changes > 0,
    settle: (id: string, s: { status: DeliveryStatus; attemptCount: number; nextAttemptAt: number | null }, now: number) =>
      settle.run({ id, status: s.status, attempt_count: s.attemptCount, next_attempt_at: s.nextAttemptAt, now }).changes > 0,
    /**
     * After a crash or a stop mid-send, the attempt's outcome is unknown: a scheduled delivery is
     * sent again (at least once); an interrupted manual retry of a finished one returns to its final state.
     */
    recoverInterrupted: (now: number) => recover.run({ now }).changes,
    list: (integrationId: string, status: DeliveryStatus | null, limit: number) => list.all({ integration_id: integrationId, status, limit }),
    insertAttempt: (a: Omit<AttemptRow, 'number'>) => void insertAttempt.run(a),
    attempts: (deliveryId: string) => attempts.all(deliveryId),
  };
}
export type WebhookStatements = ReturnType<typeof createWebhookStatements>;
