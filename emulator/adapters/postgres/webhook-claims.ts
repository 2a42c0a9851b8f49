import type { DeliveryStatus } from '../../../src/contract/webhooks.js';
import type { ClaimedDelivery, DeliveryRecord, WebhooksRepository } from '../../webhooks/repository.js';
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
    // The delivery settled by its token and its attempt recorded, in one statement (issue 25), with
    // the webhook as it stands (its failure run). Nothing is written when the token no longer holds.
    // With a notice ($13 channel, $14 and $15 around the store id: Conn.notice), the statement sends
    // it for the settled delivery's store: delivered at its commit, no statement of its own.
    settleWithAttempt: statement(
      `WITH settled AS (
         UPDATE ${t('webhook_deliveries')} d SET status = $3, attempt_count = $4, next_attempt_at = $5, updated_at = $6, ${CLEAR}
         WHERE d.id = $1 AND d.status = 'delivering' AND d.claim_token = $2
         RETURNING d.id, d.integration_id
       ), attempt AS (
         INSERT INTO ${t('webhook_attempts')} (delivery_id, number, attempted_at, manual, succeeded, response_status, error, duration_ms)
         SELECT id, (SELECT COUNT(*) + 1 FROM ${t('webhook_attempts')} WHERE delivery_id = $1), $7, $8, $9, $10, $11, $12 FROM settled
         RETURNING delivery_id
       )
       SELECT i.store_id AS "storeId", (SELECT count(*) FROM attempt) AS attempts,
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
    async settleWithAttempt(token, next, now, a) {
      const rows = await conn.rows<Record<string, unknown> & { storeId: string | null }>(s.settleWithAttempt, [
        a.deliveryId, token, next.status, next.attemptCount, next.nextAttemptAt, now,
        a.attemptedAt, a.manual, a.succeeded, a.responseStatus, a.error, a.durationMs,
        settledNotice?.channel ?? null, settledNotice?.before ?? null, settledNotice?.after ?? null,
      ]);
      tell(rows, settledNotice !== undefined);
      return rows[0] ? { webhook: webhookOf(rows[0]) } : undefined;
    },
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
