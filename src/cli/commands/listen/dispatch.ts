import { remember, SEEN_LIMIT, type CursorState } from '../feed/cursor-file.js';
import { forwardUntilTaken } from '../feed/deliver.js';
import { isOwnChange, feedForwardHeaders, signedNow } from '../feed/events.js';
import type { FeedEvent } from '../feed/drain.js';
import { forward, forwardedHeaders } from './forward.js';
import type { ListenRecord } from './output.js';

/** A verified webhook delivery, as the receiver hands it over. */
export interface WebhookDelivery {
  event: Record<string, unknown>;
  eventId: string;
  type: string;
  deliveryId: string | null;
  receivedAt: string;
  raw: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

/** What to answer the service. */
export type WebhookOutcome =
  | { status: 200; body: 'ok' | 'duplicate' | 'skipped' }
  | { status: number; body: string };

export interface DispatcherOptions {
  forwardTo?: URL;
  /** The signing secret, to sign events read from the feed the way the service signs deliveries. */
  secret: () => string | null;
  /** Kept state: `seen` is read and extended here. */
  state: CursorState;
  /** Persists `state`; throws (an ExitError) when the file cannot be written. */
  save: () => void;
  /** The integration's own id (GET /me), or null to take it from each event's envelope. */
  ownIntegrationId: string | null;
  includeOwn: boolean;
  report: (record: ListenRecord) => void;
  /** stderr lines (forward retries). */
  log: (line: string) => void;
  /** The longest wait between forward attempts of a feed event. */
  maxRetryDelayMs: number;
}

/**
 * One place where an event is handled, whichever way it came (webhook or feed): the own
 * integration's changes are skipped, an id handled before is a duplicate (spec: receiver rule 4),
 * and an id being handled right now by the other path is waited for rather than handled twice.
 * An id is remembered (and saved) only once it was printed or the app answered 2xx.
 */
export class Dispatcher {
  private readonly seen: Set<string>;
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly o: DispatcherOptions) {
    this.seen = new Set(o.state.seen);
  }

  private own(event: Record<string, unknown>): boolean {
    return !this.o.includeOwn && isOwnChange(event, this.o.ownIntegrationId);
  }

  private markSeen(eventId: string): void {
    const list = this.o.state.seen;
    const dropped = list.length >= SEEN_LIMIT ? list[0] : undefined;
    remember(list, eventId);
    this.seen.add(eventId);
    if (dropped !== undefined) this.seen.delete(dropped);
    this.o.save();
  }

  /** Runs `attempt` unless the id was handled or is being handled by the other path and succeeds there. */
  private async once(eventId: string, attempt: () => Promise<boolean>): Promise<'handled' | 'duplicate'> {
    for (;;) {
      if (this.seen.has(eventId)) return 'duplicate';
      const pending = this.inFlight.get(eventId);
      if (!pending) break;
      await pending.catch(() => false);
    }
    const run = attempt();
    this.inFlight.set(eventId, run);
    try {
      await run;
      return 'handled';
    } finally {
      this.inFlight.delete(eventId);
    }
  }

  /** A verified delivery: forwarded with its own bytes and headers, answered with the app's status. */
  async webhook(d: WebhookDelivery): Promise<WebhookOutcome> {
    const base = { kind: 'event' as const, received_at: d.receivedAt, event_id: d.eventId, delivery_id: d.deliveryId, type: d.type, event: d.event };
    if (this.own(d.event)) {
      this.o.report({ ...base, duplicate: false, own: true });
      return { status: 200, body: 'skipped' };
    }
    let outcome: WebhookOutcome = { status: 200, body: 'ok' };
    const result = await this.once(d.eventId, async () => {
      if (!this.o.forwardTo) {
        this.markSeen(d.eventId);
        this.o.report({ ...base, duplicate: false });
        return true;
      }
      const forwarded = await forward(this.o.forwardTo, forwardedHeaders(d.headers), d.raw);
      if (!forwarded.ok) {
        this.o.report({ kind: 'forward_failed', received_at: d.receivedAt, event_id: d.eventId, error: forwarded.error });
        outcome = { status: 502, body: 'forward failed' };
        return false;
      }
      const taken = forwarded.status >= 200 && forwarded.status < 300;
      if (taken) this.markSeen(d.eventId);
      this.o.report({ ...base, duplicate: false, forwarded_status: forwarded.status });
      outcome = { status: forwarded.status, body: forwarded.body };
      return taken;
    });
    if (result === 'duplicate') {
      this.o.report({ ...base, duplicate: true });
      return { status: 200, body: 'duplicate' };
    }
    return outcome;
  }

  /**
   * An event read from the feed that did not arrive (yet) by webhook: printed, or forwarded signed
   * with the webhook secret until the app takes it. Resolves when handled or already handled;
   * rejects only when `signal` stops it.
   */
  async feed(event: FeedEvent, body: string, signal: AbortSignal): Promise<void> {
    const base = { kind: 'event' as const, received_at: new Date().toISOString(), event_id: event.id, delivery_id: null, type: event.type, event, backfill: true };
    if (this.own(event)) return this.o.report({ ...base, duplicate: false, own: true });
    await this.once(event.id, async () => {
      if (!this.o.forwardTo) {
        this.markSeen(event.id);
        this.o.report({ ...base, duplicate: false });
        return true;
      }
      const { status } = await forwardUntilTaken({
        url: this.o.forwardTo,
        headers: () => this.signedHeaders(event, body),
        body,
        signal,
        maxDelayMs: this.o.maxRetryDelayMs,
        log: this.o.log,
        label: event.id,
      });
      this.markSeen(event.id);
      this.o.report({ ...base, duplicate: false, forwarded_status: status });
      return true;
    });
  }

  /** The headers of a service delivery, signed now with the listener's secret, so the app verifies feed events like webhooks. */
  private signedHeaders(event: FeedEvent, body: string): Record<string, string> {
    return signedNow(feedForwardHeaders(event), this.o.secret(), body);
  }
}
