import { setMaxListeners } from 'node:events';
import type { EnvContext } from '../context.js';
import type { DeliveryRow } from '../data/webhooks.js';
import { settleAttempt, trackFailureRun, type DeliveryState } from './retry-schedule.js';
import { signatureHeader } from '../../src/webhooks/sign.js';
import { ApiError } from '../../src/contract/errors.js';
import { enqueueDeliveries } from './outbox.js';
import { PAUSED_REASON, signingSecrets } from './config.js';
import { postWebhook, type Agents, type SendResult } from './sender.js';
import type { WebhookChaos } from '../../src/contract/webhooks.js';

/** How many deliveries of one environment are claimed at once (per host, the sender caps sends at its pool size). */
const MAX_IN_FLIGHT = 256;
/** With `reorder` on a system clock, how long fresh deliveries are held to form a burst. */
const REORDER_HOLD_MS = 200;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface AttemptTally {
  attempted: number;
  succeeded: number;
  failed: number;
}

/** What an environment's dispatcher needs from the service around it. */
export interface DispatcherHost {
  agents: Agents;
  timeoutMs: number;
  chaos(): WebhookChaos;
  /** Counts every finished attempt (the drain reports and resets it). */
  tally: AttemptTally;
}

/** One signal aborts every send under way (reset, close); each send adds a listener to it. */
function newAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The webhook dispatcher of one environment: a persistent queue in SQLite (rows written by the
 * outbox), sent by a pump that runs on inserts, on clock advances, on a timer to the next due
 * retry (system clock only: a manual clock stands still) and on every completion.
 */
export class EnvDispatcher {
  private readonly tasks = new Set<Promise<void>>();
  private claimed = 0;
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private generation = 0;
  private abort = newAbortController();
  private closed = false;

  constructor(
    readonly env: EnvContext,
    private readonly host: DispatcherHost,
  ) {
    env.webhooks.recoverInterrupted(env.clock.now());
    env.events.onInsert((event) => {
      if (enqueueDeliveries(env, event, () => this.duplicates()) > 0) this.kick('insert');
    });
    this.kick();
  }

  private duplicates(): number {
    const rate = this.host.chaos().duplicate_rate;
    return rate > 0 && this.env.random.float() < rate ? 1 : 0;
  }

  /** Asks for a pump soon (after the current transaction has committed). */
  kick(reason: 'insert' | 'other' = 'other'): void {
    if (this.closed || this.scheduled) return;
    if (reason === 'insert' && this.host.chaos().reorder) {
      // DESIGN: reorder holds a burst: until the next drain or clock advance on a manual clock.
      if (this.env.clock.mode === 'manual') return;
      this.scheduled = true;
      setTimeout(() => this.runPump(), REORDER_HOLD_MS).unref();
      return;
    }
    this.scheduled = true;
    setImmediate(() => this.runPump());
  }

  private runPump(): void {
    this.scheduled = false;
    this.pump();
  }

  /** Claims every due delivery it has room for and starts sending them. */
  pump(): void {
    if (this.closed) return;
    const room = MAX_IN_FLIGHT - this.claimed;
    if (room > 0) {
      const now = this.env.clock.now();
      const batch = this.env.tx(() =>
        this.env.webhooks.due(now, room).filter((d) => this.env.webhooks.claim(d.id, 'pending', now)),
      );
      this.claimed += batch.length;
      if (batch.length > 0) this.start(batch);
    }
    this.armTimer();
  }

  private start(batch: DeliveryRow[]): void {
    const state = (d: DeliveryRow): DeliveryState => ({ status: 'pending', attemptCount: d.attempt_count, nextAttemptAt: d.next_attempt_at });
    if (this.host.chaos().reorder && batch.length > 1) {
      // DESIGN: deliveries due together go in reverse order, one after another.
      const reversed = [...batch].reverse();
      this.track((async () => {
        for (const d of reversed) await this.attempt(d, false, state(d));
      })());
      return;
    }
    for (const d of batch) this.track(this.attempt(d, false, state(d)));
  }

  private track(task: Promise<void>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.closed || this.env.clock.mode === 'manual') return;
    const at = this.env.webhooks.nextDueAt();
    const now = this.env.clock.now();
    if (at === null || at <= now) return; // due ones wait for a free slot; completions pump again
    this.timer = setTimeout(() => this.kick(), Math.min(at - now, MAX_TIMER_MS));
    this.timer.unref();
  }

  /** One attempt of a claimed delivery; records it and moves the schedule. Never throws. */
  private async attempt(d: DeliveryRow, manual: boolean, before: DeliveryState): Promise<void> {
    const generation = this.generation;
    try {
      const webhook = this.env.webhooks.get(d.integration_id);
      if (!webhook) return;
      const delay = this.host.chaos().delay_ms;
      if (delay > 0) await sleep(delay);
      let attemptedAt = this.env.clock.now();
      // Built when the send really starts (after any wait for a slot to the receiver's host).
      const headers = () => {
        attemptedAt = this.env.clock.now();
        // DESIGN: X-Service-Timestamp is the real time of sending; the secrets' overlap follows the clock.
        const timestamp = String(Math.floor(Date.now() / 1000));
        return {
          'Content-Type': 'application/json',
          'User-Agent': 'Service-Webhooks/1.0',
          'X-Service-Event-Id': d.event_id,
          'X-Service-Event-Type': d.event_type,
          'X-Service-Delivery-Id': d.id,
          'X-Service-Timestamp': timestamp,
          'X-Service-Signature': signatureHeader(signingSecrets(webhook, this.env.clock.now()), timestamp, d.body),
        };
      };
      const result = await postWebhook(this.host.agents, webhook.url, headers, d.body, this.host.timeoutMs, this.abort.signal, this.env.outbound);
      if (this.closed || generation !== this.generation) return;
      this.record(d, manual, before, attemptedAt, result);
    } finally {
      if (!manual && generation === this.generation) this.claimed--;
      // Refill in batches (below half the room) rather than one row per completion.
      if (!this.closed && generation === this.generation && this.claimed <= MAX_IN_FLIGHT / 2) this.kick();
    }
  }

  private record(d: DeliveryRow, manual: boolean, before: DeliveryState, attemptedAt: number, result: SendResult): void {
    this.env.tx(() => {
      const now = this.env.clock.now();
      const next = settleAttempt(before, result.succeeded, manual, now);
      if (!this.env.webhooks.settle(d.id, next, now)) return;
      this.env.webhooks.insertAttempt({
        delivery_id: d.id,
        attempted_at: attemptedAt,
        manual: manual ? 1 : 0,
        succeeded: result.succeeded ? 1 : 0,
        response_status: result.responseStatus,
        error: result.error,
        duration_ms: result.durationMs,
      });
      const webhook = this.env.webhooks.get(d.integration_id);
      if (!webhook) return;
      const run = trackFailureRun(webhook.failingSince, result.succeeded, now);
      const pause = run.pause && !webhook.paused;
      if (run.failingSince !== webhook.failingSince || pause) {
        this.env.webhooks.save({
          ...webhook,
          failingSince: run.failingSince,
          ...(pause ? { paused: true, pausedReason: PAUSED_REASON, updatedAt: now } : {}),
        });
      }
    });
    const tally = this.host.tally;
    tally.attempted++;
    if (result.succeeded) tally.succeeded++;
    else tally.failed++;
  }

  /**
   * spec: POST /webhook/deliveries/{id}/retry — one extra attempt now, awaited; 409
   * `delivery_in_progress` while the delivery is being sent.
   */
  async retryNow(integrationId: string, deliveryId: string): Promise<DeliveryRow> {
    const d = this.env.webhooks.delivery(deliveryId);
    if (!d || (integrationId !== '*' && d.integration_id !== integrationId)) throw ApiError.of('not_found');
    if (d.status === 'delivering' || !this.env.webhooks.claim(d.id, d.status, this.env.clock.now())) {
      throw ApiError.of('delivery_in_progress');
    }
    const task = this.attempt(d, true, { status: d.status, attemptCount: d.attempt_count, nextAttemptAt: d.next_attempt_at });
    this.track(task);
    await task;
    return this.env.webhooks.delivery(deliveryId)!;
  }

  /** Whether anything is being sent or is due now. */
  busy(): boolean {
    return this.tasks.size > 0 || this.env.webhooks.due(this.env.clock.now(), 1).length > 0;
  }

  async settled(): Promise<void> {
    await Promise.all([...this.tasks]);
  }

  /** After the emulator's reset: the tables are empty; sends under way are dropped. */
  reset(): void {
    this.generation++;
    this.abort.abort();
    this.abort = newAbortController();
    this.claimed = 0;
    this.tasks.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    // Rows left `delivering` are sent again at the next start (at least once).
    await Promise.allSettled([...this.tasks]);
  }
}
