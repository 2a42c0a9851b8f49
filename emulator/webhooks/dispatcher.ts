import { setMaxListeners } from 'node:events';
import type { EnvContext } from '../context.js';
import type { ClaimedDelivery, Lease } from './repository.js';
import { settleAttempt, trackFailureRun, type DeliveryState } from './retry-schedule.js';
import { signatureHeader } from '../../src/webhooks/sign.js';
import { ApiError } from '../../src/contract/errors.js';
import { PAUSED_REASON, signingSecrets } from './config.js';
import { postWebhook, type Agents, type SendResult } from './sender.js';
import type { WebhookChaos } from '../../src/contract/webhooks.js';
import { isStorageUnavailable } from '../store/errors.js';

/** How many deliveries of one environment are claimed at once (per host, the sender caps sends at its pool size). */
const MAX_IN_FLIGHT = 256;
/** With `reorder` on a system clock, how long fresh deliveries are held to form a burst. */
const REORDER_HOLD_MS = 200;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How soon a pump looks again at a delivery that was due but not claimed with a slot free. */
const DUE_AGAIN_MS = 50;

export interface AttemptTally {
  attempted: number;
  succeeded: number;
  failed: number;
}

/** What an environment's dispatcher needs from the service around it. */
export interface DispatcherHost {
  agents: Agents;
  timeoutMs: number;
  /** How long a claim outlives the response timeout, in real ms (the emulator's `webhookLeaseMarginMs`). */
  leaseMarginMs: number;
  /** The chaos setting last read (at once). */
  chaos(): WebhookChaos;
  /** The chaos setting as the sandbox holds it now (another process may have changed it). */
  freshChaos(): WebhookChaos | Promise<WebhookChaos>;
  /** Counts every finished attempt (the drain reports and resets it). */
  tally: AttemptTally;
  /** This process's name in claims (another process of the sandbox has another). */
  owner: string;
  /** Whether other processes share the queue (a server database). */
  shared: boolean;
}

/** One signal aborts every send under way (reset, close); each send adds a listener to it. */
function newAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often an attempt's outcome is written again while the storage cannot be reached. */
const RECORD_RETRY_MS = 1000;

/**
 * The webhook dispatcher of one environment: a persistent queue in the storage (rows written by the
 * outbox in the event's transaction), sent by a pump that runs after commits that queued deliveries,
 * on clock advances, on a timer to the next due retry (system clock only: a manual clock stands
 * still) and on every completion. Each attempt is made under a claim (a lease, on a shared database
 * another process honours); settling needs the claim's token.
 */
export class EnvDispatcher {
  private readonly tasks = new Set<Promise<void>>();
  private claimed = 0;
  private scheduled = false;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private generation = 0;
  private abort = newAbortController();
  private closed = false;

  constructor(
    readonly env: EnvContext,
    private readonly host: DispatcherHost,
  ) {}

  /** At start: what a stopped emulator was sending is sent again (at least once); then the queue runs. */
  async start(): Promise<void> {
    await this.env.store.webhooks.recoverInterrupted(this.env.clock.now());
    this.kick();
  }

  /** Extra copies of each event chaos asks for (DESIGN: `duplicate_rate`). */
  duplicates(): number {
    const rate = this.host.chaos().duplicate_rate;
    return rate > 0 && this.env.random.float() < rate ? 1 : 0;
  }

  /** Asks for a pump soon (the deliveries' transaction has committed). */
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
    void this.pump();
  }

  /** Claims every due delivery it has room for and starts sending them; one pump at a time. */
  pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        await this.pumpOnce();
      } while (this.pumpAgain && !this.closed);
    })()
      .catch((error: Error) => process.emitWarning(`webhook dispatcher: ${error.message}`))
      .finally(() => {
        this.pumping = null;
      });
    return this.pumping;
  }

  private async pumpOnce(): Promise<void> {
    if (this.closed) return;
    const room = MAX_IN_FLIGHT - this.claimed;
    if (room > 0) {
      const generation = this.generation;
      const batch = await this.env.store.webhooks.claimDue(this.env.clock.now(), room, this.lease());
      if (generation !== this.generation) return;
      this.claimed += batch.length;
      if (batch.length > 0) this.send(batch);
    }
    await this.armTimer();
  }

  private lease(): Lease {
    return { owner: this.host.owner, until: Date.now() + this.host.timeoutMs + this.host.leaseMarginMs };
  }

  private send(batch: ClaimedDelivery[]): void {
    const state = (d: ClaimedDelivery): DeliveryState => ({ status: 'pending', attemptCount: d.attemptCount, nextAttemptAt: d.nextAttemptAt });
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

  private async armTimer(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.closed || this.env.clock.mode === 'manual') return;
    const at = await this.env.store.webhooks.nextDueAt();
    const now = this.env.clock.now();
    if (this.closed || at === null) return;
    // Due already: with every slot taken it waits for one (a completion pumps again). With a slot
    // free it fell due while this pump ran (a slow turn on a loaded machine: no completion is coming),
    // or another process is claiming it (a shared database skips rows being claimed): look again soon.
    if (at <= now && this.claimed >= MAX_IN_FLIGHT) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), at <= now ? DUE_AGAIN_MS : Math.min(at - now, MAX_TIMER_MS));
    this.timer.unref();
  }

  /** One attempt of a claimed delivery; records it and moves the schedule. Never throws. */
  private async attempt(d: ClaimedDelivery, manual: boolean, before: DeliveryState): Promise<void> {
    const generation = this.generation;
    try {
      const webhook = d.webhook !== undefined ? d.webhook : await this.env.store.webhooks.get(d.integrationId);
      if (!webhook) return;
      const delay = (await this.host.freshChaos()).delay_ms;
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
          'X-Service-Event-Id': d.eventId,
          'X-Service-Event-Type': d.eventType,
          'X-Service-Delivery-Id': d.id,
          'X-Service-Timestamp': timestamp,
          'X-Service-Signature': signatureHeader(signingSecrets(webhook, this.env.clock.now()), timestamp, d.body),
        };
      };
      const result = await postWebhook(this.host.agents, webhook.url, headers, d.body, this.host.timeoutMs, this.abort.signal, this.env.outbound);
      if (this.closed || generation !== this.generation) return;
      await this.record(d, manual, before, attemptedAt, result);
    } catch (error) {
      process.emitWarning(`webhook dispatcher: ${(error as Error).message}`);
    } finally {
      if (!manual && generation === this.generation) this.claimed--;
      // Refill in batches (below half the room) rather than one row per completion.
      if (!this.closed && generation === this.generation && this.claimed <= MAX_IN_FLIGHT / 2) this.kick();
    }
  }

  /**
   * Records the attempt's known outcome. While the storage cannot be reached (a shared database
   * restarting, the network cut) the outcome is kept and written again every second until it goes
   * through (issue 24: a receiver's 200 is not turned into a failure by an outage), unless the
   * emulator closes or resets meanwhile; a claim taken back in the meantime is no longer this
   * attempt's to settle.
   */
  private async record(d: ClaimedDelivery, manual: boolean, before: DeliveryState, attemptedAt: number, result: SendResult): Promise<void> {
    const generation = this.generation;
    for (let told = false; ; ) {
      try {
        return await this.recordOnce(d, manual, before, attemptedAt, result);
      } catch (error) {
        if (!isStorageUnavailable(error) || this.closed || generation !== this.generation) throw error;
        if (!told) process.emitWarning(`webhook dispatcher: the outcome of delivery ${d.id} is kept until the database is back (${(error as Error).message})`);
        told = true;
        await sleep(RECORD_RETRY_MS);
        if (this.closed || generation !== this.generation) throw error;
      }
    }
  }

  private async recordOnce(d: ClaimedDelivery, manual: boolean, before: DeliveryState, attemptedAt: number, result: SendResult): Promise<void> {
    const webhooks = this.env.store.webhooks;
    const settled = webhooks.settleWithAttempt ? await this.settleInOne(d, manual, before, attemptedAt, result) : await this.env.store.tx(async (tx) => {
      const now = this.env.clock.now();
      const next = settleAttempt(before, result.succeeded, manual, now);
      // A claim taken back meanwhile (its lease ran out) is no longer this attempt's to settle.
      if (!(await tx.webhooks.settle(d.id, d.claimToken, next, now))) return false;
      await tx.webhooks.insertAttempt({
        deliveryId: d.id,
        attemptedAt,
        manual,
        succeeded: result.succeeded,
        responseStatus: result.responseStatus,
        error: result.error,
        durationMs: result.durationMs,
      });
      const webhook = await tx.webhooks.get(d.integrationId);
      if (!webhook) return true;
      const run = trackFailureRun(webhook.failingSince, result.succeeded, now);
      const pause = run.pause && !webhook.paused;
      if (run.failingSince !== webhook.failingSince || pause) {
        await tx.webhooks.save({
          ...webhook,
          failingSince: run.failingSince,
          ...(pause ? { paused: true, pausedReason: PAUSED_REASON, updatedAt: now } : {}),
        });
      }
      return true;
    });
    if (!settled) return;
    const tally = this.host.tally;
    tally.attempted++;
    if (result.succeeded) tally.succeeded++;
    else tally.failed++;
  }

  /**
   * The delivery settled and its attempt recorded in one statement (a server database), then the
   * webhook's failure run moved when it changes (rare: the first failure after a success, the first
   * success after failures, the pause): a write of its own, as the configuration's writes are.
   */
  private async settleInOne(d: ClaimedDelivery, manual: boolean, before: DeliveryState, attemptedAt: number, result: SendResult): Promise<boolean> {
    const now = this.env.clock.now();
    const next = settleAttempt(before, result.succeeded, manual, now);
    const attempt = {
      deliveryId: d.id, attemptedAt, manual, succeeded: result.succeeded, responseStatus: result.responseStatus, error: result.error, durationMs: result.durationMs,
    };
    const settled = await this.env.store.webhooks.settleWithAttempt!(d.claimToken, next, now, attempt);
    if (!settled) return false;
    const webhook = settled.webhook;
    if (!webhook) return true;
    const run = trackFailureRun(webhook.failingSince, result.succeeded, now);
    const pause = run.pause && !webhook.paused;
    if (run.failingSince !== webhook.failingSince || pause) {
      await this.env.store.tx(async (tx) => {
        // Read again under the transaction: a configuration write may have come in between.
        const current = await tx.webhooks.get(d.integrationId);
        if (!current) return;
        const again = trackFailureRun(current.failingSince, result.succeeded, now);
        const pauseNow = again.pause && !current.paused;
        if (again.failingSince === current.failingSince && !pauseNow) return;
        await tx.webhooks.save({
          ...current,
          failingSince: again.failingSince,
          ...(pauseNow ? { paused: true, pausedReason: PAUSED_REASON, updatedAt: now } : {}),
        });
      });
    }
    return true;
  }

  /**
   * spec: POST /webhook/deliveries/{id}/retry — one extra attempt now, awaited; 409
   * `delivery_in_progress` while the delivery is being sent.
   */
  async retryNow(integrationId: string, deliveryId: string) {
    const d = await this.env.store.webhooks.delivery(deliveryId);
    if (!d || (integrationId !== '*' && d.integrationId !== integrationId)) throw ApiError.of('not_found');
    const claimed = d.status === 'delivering' ? undefined : await this.env.store.webhooks.claim(d.id, d.status, this.env.clock.now(), this.lease());
    if (!claimed) throw ApiError.of('delivery_in_progress');
    const task = this.attempt(claimed, true, { status: d.status, attemptCount: d.attemptCount, nextAttemptAt: d.nextAttemptAt });
    this.track(task);
    await task;
    return (await this.env.store.webhooks.delivery(deliveryId))!;
  }

  /**
   * Claims whose process died mid-attempt (shared databases): taken back as failed attempts, then
   * sent on schedule. On a shared database this also takes up due work that another process left
   * behind: a retry it scheduled (its timer, not ours, was waiting for it) or a delivery it wrote,
   * before it stopped for good. A burst that reorder holds on a manual clock stays held.
   */
  async expireLeases(): Promise<void> {
    const taken = await this.env.store.webhooks.expireLeases(Date.now(), this.env.clock.now());
    const held = this.host.chaos().reorder && this.env.clock.mode === 'manual';
    if (taken > 0 || (this.host.shared && !held && (await this.env.store.webhooks.anyDue(this.env.clock.now())))) this.kick();
  }

  /** Whether anything is being sent or is due now. */
  async busy(): Promise<boolean> {
    return this.tasks.size > 0 || this.pumping !== null || (await this.env.store.webhooks.anyDue(this.env.clock.now()));
  }

  async settled(): Promise<void> {
    await Promise.all([...this.tasks]);
    if (this.pumping) await this.pumping;
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
    if (this.pumping) await this.pumping;
  }
}
