import type { DeliveryStatus } from '../../../src/contract/webhooks.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryRecord, WebhookRecord, WebhooksRepository } from '../../webhooks/repository.js';
import type { DeliveryState } from '../../webhooks/retry-schedule.js';
import { settleAttempt } from '../../webhooks/retry-schedule.js';
import { statement, tableIn, type Conn, type NoticeParts } from './conn.js';
import { WEBHOOK_COLUMNS, webhookOf } from './webhooks.js';

/**
 * Webhook delivery claims across processes (DESIGN: each attempt is made by one process under a
 * lease). A claim sets `delivering` with a fresh token, its owner and a lease in real time; only the
 * matching token settles it, so a process whose lease was taken back cannot overwrite what came after.
 * A claim whose lease ran out (its process died mid-attempt) is taken back as one failed attempt that
 * follows the schedule; the token changes hands in one statement, so two processes never both take it
 * back, and a delivery is never in two attempts at once.
 */

// The delivery as it was before the claim, plus the new token (the claimed record reads `delivering`).
const CLAIMED = `o.seq, o.id, o.integration_id AS "integrationId", o.event_id AS "eventId", o.event_type AS "eventType", o.body,
  'delivering' AS status, o.attempt_count AS "attemptCount", o.next_attempt_at AS "nextAttemptAt", o.created_at AS "createdAt",
  o.updated_at AS "updatedAt", d.claim_token AS "claimToken", (SELECT store_id FROM %INTEGRATIONS% WHERE id = o.integration_id) AS "storeId"`;

const CLEAR = 'claim_token = NULL, claim_owner = NULL, claim_until = NULL, claim_manual = NULL, claim_from = NULL, claimed_at = NULL';

export function claimsSql(schema: string) {
  const t = tableIn(schema);
  const claimed = CLAIMED.replace('%INTEGRATIONS%', t('integrations'));
  const take = `status = 'delivering', updated_at = $1, claim_token = gen_random_uuid()::text, claim_owner = $2, claim_until = $3, claimed_at = $1`;
  return {
    // Rows another process is claiming right now are skipped, not waited for. With a notice ($5
    // channel, $6 and $7 around the store id: Conn.notice) the statement sends each claimed
    // delivery's store's notice itself (issue 25: no statement of its own; PostgreSQL delivers
    // identical notices of one transaction once, so a store claimed for twice is told once).
    claimDue: statement(
      `WITH o AS (
         SELECT d.* FROM ${t('webhook_deliveries')} d JOIN ${t('webhooks')} w ON w.integration_id = d.integration_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.active AND NOT w.paused
         ORDER BY d.next_attempt_at, d.seq LIMIT $4
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE ${t('webhook_deliveries')} d SET ${take}, claim_manual = false, claim_from = 'pending'
       FROM o LEFT JOIN ${t('webhooks')} w ON w.integration_id = o.integration_id WHERE d.seq = o.seq
       RETURNING ${claimed}, ${WEBHOOK_COLUMNS()},
         CASE WHEN $5::text IS NOT NULL THEN pg_notify($5::text, $6::text || COALESCE(to_json(
           (SELECT store_id FROM ${t('integrations')} WHERE id = o.integration_id))::text, 'null') || $7::text) END AS told`,
    ),
    claim: statement(
      `WITH o AS (SELECT * FROM ${t('webhook_deliveries')} WHERE id = $4 AND status = $5 FOR UPDATE)
       UPDATE ${t('webhook_deliveries')} d SET ${take}, claim_manual = true, claim_from = $5
       FROM o LEFT JOIN ${t('webhooks')} w ON w.integration_id = o.integration_id WHERE d.seq = o.seq
       RETURNING ${claimed}, ${WEBHOOK_COLUMNS()}`,
    ),
    settle: statement(
      `UPDATE ${t('webhook_deliveries')} d SET status = $3, attempt_count = $4, next_attempt_at = $5, updated_at = $6, ${CLEAR}
       WHERE d.id = $1 AND d.status = 'delivering' AND d.claim_token = $2
       RETURNING (SELECT store_id FROM ${t('integrations')} WHERE id = d.integration_id) AS "storeId"`,
    ),
    // Deliveries settled by their tokens and their attempts recorded, in one statement (issue 25), each
    // with its webhook as it stands (its failure run): the settlements of one or more attempts, one
    // row of the arrays each. Nothing is written for a delivery whose token no longer holds. With a
    // notice ($13 channel, $14 and $15 around the store id: Conn.notice), the statement sends it for
    // each settled delivery's store: delivered at its commit, no statement of its own (PostgreSQL
    // delivers identical notices of one transaction once).
    settleWithAttempts: statement(
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
           $7::bigint[], $8::boolean[], $9::boolean[], $10::bigint[], $11::text[], $12::bigint[])
           AS x(id, token, status, attempt_count, next_attempt_at, now, attempted_at, manual, succeeded, response_status, error, duration_ms)
       ), settled AS (
         UPDATE ${t('webhook_deliveries')} d SET status = x.status, attempt_count = x.attempt_count, next_attempt_at = x.next_attempt_at,
           updated_at = x.now, ${CLEAR}
         FROM x WHERE d.id = x.id AND d.status = 'delivering' AND d.claim_token = x.token
         RETURNING d.id, d.integration_id, x.token
       ), attempt AS (
         INSERT INTO ${t('webhook_attempts')} (delivery_id, number, attempted_at, manual, succeeded, response_status, error, duration_ms)
         SELECT s.id, (SELECT COUNT(*) + 1 FROM ${t('webhook_attempts')} a WHERE a.delivery_id = s.id), x.attempted_at, x.manual, x.succeeded,
           x.response_status, x.error, x.duration_ms
         FROM settled s JOIN x ON x.id = s.id AND x.token = s.token
         RETURNING delivery_id
       )
       SELECT s.id AS "deliveryId", s.token, i.store_id AS "storeId", (SELECT count(*) FROM attempt) AS attempts,
         CASE WHEN $13::text IS NOT NULL THEN pg_notify($13::text, $14::text || COALESCE(to_json(i.store_id)::text, 'null') || $15::text) END AS told,
         ${WEBHOOK_COLUMNS()}
       FROM settled s LEFT JOIN ${t('integrations')} i ON i.id = s.integration_id LEFT JOIN ${t('webhooks')} w ON w.integration_id = s.integration_id`,
    ),
    expired: statement(
      `SELECT d.id, d.claim_token AS token, d.claim_from AS "from", d.claim_manual AS manual, d.attempt_count AS "attemptCount",
         d.next_attempt_at AS "nextAttemptAt", d.claimed_at AS "claimedAt"
       FROM ${t('webhook_deliveries')} d
       WHERE d.status = 'delivering' AND d.claim_token IS NOT NULL AND d.claim_until < $1
       ORDER BY d.seq`,
    ),
    // The token changes in the same statement that records the failed attempt: one taker only.
    takeBack: statement(
      `WITH settled AS (
         UPDATE ${t('webhook_deliveries')} d SET status = $3, attempt_count = $4, next_attempt_at = $5, updated_at = $6, ${CLEAR}
         WHERE d.id = $1 AND d.status = 'delivering' AND d.claim_token = $2
         RETURNING d.id, d.integration_id
       )
       INSERT INTO ${t('webhook_attempts')} (delivery_id, number, attempted_at, manual, succeeded, response_status, error, duration_ms)
       SELECT id, (SELECT COUNT(*) + 1 FROM ${t('webhook_attempts')} WHERE delivery_id = $1), $7, $8, false, NULL, $9, GREATEST(0, $6 - $7)
       FROM settled
       RETURNING (SELECT i.store_id FROM ${t('integrations')} i JOIN settled s ON i.id = s.integration_id) AS "storeId"`,
    ),
    // A `delivering` row with no claim was written by the embedded adapter (a bundle made mid-attempt):
    // it goes back as that adapter's restart does (see its recoverInterrupted).
    recoverUnclaimed: statement(
      `UPDATE ${t('webhook_deliveries')} d SET updated_at = $1, status = CASE
         WHEN d.next_attempt_at IS NOT NULL THEN 'pending'
         WHEN EXISTS (SELECT 1 FROM ${t('webhook_attempts')} a WHERE a.delivery_id = d.id AND a.succeeded) THEN 'succeeded'
         ELSE 'failed' END
       WHERE d.status = 'delivering' AND d.claim_token IS NULL`,
    ),
  };
}

/**
 * The attempt a lease expiry records. All that is known is that no outcome was recorded in time: the
 * process making the attempt stopped, or could not reach the database to record it (issue 24: it must
 * not say the process stopped when it may only have lost the database).
 */
export const LEASE_EXPIRED = 'no outcome recorded: the emulator process making this attempt stopped or lost the database before its lease ran out';

type Claimed = ClaimedDelivery & { storeId: string | null };

interface Expired {
  id: string;
  token: string;
  from: DeliveryStatus;
  manual: boolean;
  attemptCount: number;
  nextAttemptAt: number | null;
  claimedAt: number;
}

type ClaimMethods = Pick<WebhooksRepository, 'claimDue' | 'claim' | 'settle' | 'settleWithAttempt' | 'expireLeases' | 'recoverInterrupted'>;

export function pgClaims(
  conn: Conn, s: ReturnType<typeof claimsSql>, changed: (storeId: string | null, config: boolean, told?: boolean) => void,
  /**
   * The notice of a delivery's change (a claim's or a settlement's), for its statement to send (the
   * pool's), or none (a transaction's: sent with its COMMIT).
   */
  settledNotice?: NoticeParts,
): ClaimMethods {
  const tell = (rows: { storeId: string | null }[], told = false) => {
    for (const storeId of new Set(rows.map((r) => r.storeId))) changed(storeId, false, told);
  };
  // The claimed delivery with its webhook as the claim read it (issue 25: no read of it per attempt).
  const strip = (row: Claimed): ClaimedDelivery => {
    const delivery: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) if (key !== 'storeId' && key !== 'told' && !key.startsWith('w_')) delivery[key] = value;
    return { ...(delivery as unknown as ClaimedDelivery), webhook: webhookOf(row as unknown as Record<string, unknown>) ?? null };
  };
  const byQueueOrder = (a: DeliveryRecord, b: DeliveryRecord) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0) || a.seq - b.seq;

  async function expireLeases(realNow: number, now: number): Promise<number> {
    let taken = 0;
    for (const e of await conn.rows<Expired>(s.expired, [realNow])) {
      const before = { status: e.from, attemptCount: e.attemptCount, nextAttemptAt: e.nextAttemptAt };
      const next = settleAttempt(before, false, e.manual, now);
      const rows = await conn.rows<{ storeId: string | null }>(s.takeBack, [
        e.id, e.token, next.status, next.attemptCount, next.nextAttemptAt, now, e.claimedAt, e.manual, LEASE_EXPIRED,
      ]);
      taken += rows.length;
      tell(rows);
    }
    return taken;
  }

  const settlements = new Settlements(async (batch) => {
    const rows = await conn.rows<Record<string, unknown> & { deliveryId: string; token: string; storeId: string | null }>(s.settleWithAttempts, [
      ...settlementColumns(batch), settledNotice?.channel ?? null, settledNotice?.before ?? null, settledNotice?.after ?? null,
    ]);
    tell(rows, settledNotice !== undefined);
    return new Map(rows.map((row) => [settledKey(row.deliveryId, row.token), { webhook: webhookOf(row) }]));
  }, settledNotice !== undefined);

  return {
    async claimDue(now, limit, lease) {
      const rows = await conn.rows<Claimed>(s.claimDue, [
        now, lease.owner, lease.until, limit, settledNotice?.channel ?? null, settledNotice?.before ?? null, settledNotice?.after ?? null,
      ]);
      tell(rows, settledNotice !== undefined);
      return rows.map(strip).sort(byQueueOrder);
    },
    async claim(id, from, now, lease) {
      const rows = await conn.rows<Claimed>(s.claim, [now, lease.owner, lease.until, id, from]);
      tell(rows);
      return rows[0] ? strip(rows[0]) : undefined;
    },
    async settle(id, token, next, now) {
      const rows = await conn.rows<{ storeId: string | null }>(s.settle, [id, token, next.status, next.attemptCount, next.nextAttemptAt, now]);
      tell(rows);
      return rows.length > 0;
    },
    settleWithAttempt: (token, next, now, attempt) => settlements.settle({ token, next, now, attempt }),
    expireLeases,
    /**
     * At start, with other processes possibly mid-attempt: only claims nobody holds any longer come
     * back (their lease ran out, counted as failed attempts), and rows of an embedded-database bundle.
     */
    async recoverInterrupted(now) {
      const unclaimed = await conn.run(s.recoverUnclaimed, [now]);
      if (unclaimed > 0) changed(null, false);
      return unclaimed + (await expireLeases(Date.now(), now));
    },
  };
}

/** One attempt's settlement, as `settleWithAttempt` takes it. */
interface Settlement {
  token: string;
  next: DeliveryState;
  now: number;
  attempt: Omit<AttemptRecord, 'number'>;
}

type Settled = { webhook: WebhookRecord | undefined } | undefined;

/** A settlement's delivery and token: its answer among its statement's rows. */
const settledKey = (deliveryId: string, token: string) => `${deliveryId}\n${token}`;
const keyOf = (s: Settlement) => settledKey(s.attempt.deliveryId, s.token);

/** The twelve arrays of `settleWithAttempts` ($1–$12), one element per settlement. */
function settlementColumns(batch: readonly Settlement[]): unknown[][] {
  const pick = <T>(f: (s: Settlement) => T) => batch.map(f);
  return [
    pick((s) => s.attempt.deliveryId), pick((s) => s.token), pick((s) => s.next.status), pick((s) => s.next.attemptCount),
    pick((s) => s.next.nextAttemptAt), pick((s) => s.now), pick((s) => s.attempt.attemptedAt), pick((s) => s.attempt.manual),
    pick((s) => s.attempt.succeeded), pick((s) => s.attempt.responseStatus), pick((s) => s.attempt.error), pick((s) => s.attempt.durationMs),
  ];
}

/**
 * The pool's settlements, sent together (issue 25: one statement, its round trip and its commit were
 * a quarter of a statement per API request under the mixed bench). The deliveries of a claim are sent
 * at once and their answers come back close together: a settlement asked for while another statement
 * of settlements is on its way waits for it, and all that waited go in the next statement. None
 * waits for a timer: alone, a settlement leaves at once (in the same turn's statement as any asked for
 * in that turn). Each is written as its own was (by its token; nothing when the claim was lost), and
 * is answered once its statement committed. A failed statement fails each of its settlements, as
 * their own statements would have failed (the connection's loss: the dispatcher keeps each outcome
 * and writes it again). A transaction's settlements (`together` false) each go at once: its
 * statements are its own.
 */
class Settlements {
  private waiting: { settlement: Settlement; resolve: (v: Settled) => void; reject: (e: unknown) => void }[] = [];
  private sending = false;

  constructor(
    private readonly write: (batch: readonly Settlement[]) => Promise<Map<string, Settled>>,
    private readonly together: boolean,
  ) {}

  settle(settlement: Settlement): Promise<Settled> {
    if (!this.together) return this.write([settlement]).then((done) => done.get(keyOf(settlement)));
    return new Promise<Settled>((resolve, reject) => {
      this.waiting.push({ settlement, resolve, reject });
      if (!this.sending) {
        this.sending = true;
        queueMicrotask(() => this.send());
      }
    });
  }

  private send(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) {
      this.sending = false;
      return;
    }
    this.write(batch.map((w) => w.settlement)).then(
      (done) => {
        for (const w of batch) w.resolve(done.get(keyOf(w.settlement)));
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
      },
    ).finally(() => this.send());
  }
}
