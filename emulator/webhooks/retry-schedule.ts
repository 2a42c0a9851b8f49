import type { DeliveryStatus } from '../../src/contract/webhooks.js';
import { LIMITS } from '../../src/contract/limits.js';

// spec: Events, Webhook delivery 2 — 9 attempts; each retry comes that long after the previous
// failed attempt (DESIGN: delays are successive).
export const RETRY_DELAYS_MS: readonly number[] = LIMITS.webhookRetryDelaysMs;
export const MAX_ATTEMPTS = LIMITS.webhookAttempts;
export const PAUSE_AFTER_MS = LIMITS.webhookPauseAfterMs;

export interface DeliveryState {
  status: DeliveryStatus;
  /** Scheduled attempts made so far (manual retries are not counted). */
  attemptCount: number;
  nextAttemptAt: number | null;
}

/**
 * The delivery's state after one attempt. `before` is its state before the attempt was claimed.
 * A scheduled failure schedules the next retry or, after the ninth attempt, ends `failed`. A manual
 * retry is one extra attempt (DESIGN): success ends `succeeded`, failure leaves the schedule as it was.
 */
export function settleAttempt(before: DeliveryState, succeeded: boolean, manual: boolean, now: number): DeliveryState {
  const attemptCount = manual ? before.attemptCount : before.attemptCount + 1;
  if (succeeded) return { status: 'succeeded', attemptCount, nextAttemptAt: null };
  if (manual) return { ...before };
  if (attemptCount >= MAX_ATTEMPTS) return { status: 'failed', attemptCount, nextAttemptAt: null };
  return { status: 'pending', attemptCount, nextAttemptAt: now + RETRY_DELAYS_MS[attemptCount - 1] };
}

export interface FailureRun {
  failingSince: number | null;
  /** DESIGN: paused when an attempt fails and the unbroken run of failures began 72 h or more earlier. */
  pause: boolean;
}

/** The webhook's run of failed attempts after one more attempt; a success ends the run. */
export function trackFailureRun(failingSince: number | null, succeeded: boolean, now: number): FailureRun {
  if (succeeded) return { failingSince: null, pause: false };
  const since = failingSince ?? now;
  return { failingSince: since, pause: now - since >= PAUSE_AFTER_MS };
}
