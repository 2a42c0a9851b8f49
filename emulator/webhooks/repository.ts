import type { DeliveryStatus } from '../../src/contract/webhooks.js';
import type { DeliveryState } from './retry-schedule.js';

// The webhooks aggregate's records and repositories: one webhook per integration, its deliveries
// (a persistent queue written by the outbox in the event's transaction) and their attempts. The
// adapters in emulator/store/* implement them.

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

export interface DeliveryRecord {
  /** Queue order (oldest first). */
  seq: number;
  id: string;
  integrationId: string;
  eventId: string;
  eventType: string;
  /** The event envelope as sent (signed over these bytes). */
  body: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A delivery claimed for one attempt: settling it needs the same token (another process may have taken it since). */
export interface ClaimedDelivery extends DeliveryRecord {
  claimToken: string;
  /**
   * The delivery's webhook as the claim read it, null when it has none (a server database reads it
   * with the claim: one statement less per attempt); absent: the attempt reads it itself.
   */
  webhook?: WebhookRecord | null;
}

export interface AttemptRecord {
  deliveryId: string;
  number: number;
  attemptedAt: number;
  manual: boolean;
  succeeded: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** A delivery about one order, as the homologation observer reads it. */
export interface OrderDelivery {
  orderId: string;
  /** The order's status in the event's body. */
  orderStatus: string | null;
  eventId: string;
  eventType: string;
  body: string;
  status: DeliveryStatus;
  /** Emulator time of the first successful attempt. */
  succeededAt: number | null;
  /** Emulator time that attempt was answered (its start plus its duration). */
  answeredAt: number | null;
  lastResponseStatus: number | null;
}

/**
 * A claim's lease, in real time: past `until` (the response timeout plus a margin) a claim whose
 * process died is taken back and its attempt counts as failed (DESIGN: Storage and the team sandbox).
 */
export interface Lease {
  owner: string;
  until: number;
}

export interface WebhooksRepository {
  get(integrationId: string): Promise<WebhookRecord | undefined>;
  /** Creates or replaces the integration's webhook. */
  save(webhook: WebhookRecord): Promise<void>;
  insertDelivery(delivery: { id: string; integrationId: string; eventId: string; eventType: string; body: string }, now: number): Promise<void>;
  delivery(id: string): Promise<DeliveryRecord | undefined>;
  /** The integration's deliveries, newest first, of one status or all. */
  list(integrationId: string, status: DeliveryStatus | null, limit: number): Promise<DeliveryRecord[]>;
  /**
   * Claims up to `limit` pending deliveries due at `now` whose webhook is active and not paused,
   * oldest first: each is `delivering` under this lease until settled. Two processes never claim one.
   */
  claimDue(now: number, limit: number, lease: Lease): Promise<ClaimedDelivery[]>;
  /** Claims one delivery from `from` (a manual retry); undefined when someone else holds it. */
  claim(id: string, from: DeliveryStatus, now: number, lease: Lease): Promise<ClaimedDelivery | undefined>;
  /** Whether any delivery is due at `now` (pending, webhook active and not paused). */
  anyDue(now: number): Promise<boolean>;
  /** The earliest next attempt of a pending delivery whose webhook is active, or null. */
  nextDueAt(): Promise<number | null>;
  /** Ends a claim with the delivery's new state; false when the claim was lost (token no longer holds). */
  settle(id: string, claimToken: string, next: DeliveryState, now: number): Promise<boolean>;
  insertAttempt(attempt: Omit<AttemptRecord, 'number'>): Promise<void>;
  /**
   * `settle` and `insertAttempt` in one statement (a server database: one round trip instead of a
   * transaction of four), answering the delivery's webhook as it stands for its failure run;
   * undefined when the claim was lost (nothing written). Optional: without it the dispatcher settles
   * in a transaction of the two.
   */
  settleWithAttempt?(
    claimToken: string, next: DeliveryState, now: number, attempt: Omit<AttemptRecord, 'number'>,
  ): Promise<{ webhook: WebhookRecord | undefined } | undefined>;
  attempts(deliveryId: string): Promise<AttemptRecord[]>;
  /**
   * At start: every `delivering` row of a stopped emulator goes back to `pending` (a scheduled one is
   * sent again: at least once) or, for an interrupted manual retry of a finished delivery, to its
   * final state.
   */
  recoverInterrupted(now: number): Promise<number>;
  /**
   * Claims whose lease ran out (their process died mid-attempt): each counts as one failed attempt
   * and follows the schedule. Answers the deliveries taken back.
   */
  expireLeases(realNow: number, now: number): Promise<number>;
  /** The integration's deliveries of events about one order, oldest first. */
  deliveriesAboutOrder(integrationId: string, orderId: string): Promise<OrderDelivery[]>;
}
