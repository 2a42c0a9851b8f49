import type { Violation } from './validate.js';

/** A request that answered 409, 429 or 503 with Retry-After, and when the client may come back. */
interface Wait {
  notBefore: number;
  retryAfterSeconds: number;
  status: number;
}

const WAITED_STATUSES = new Set([409, 429, 503]);

/**
 * spec: Errors — retry guidance: after 429 or 503 the client waits the seconds of Retry-After; the
 * 409s `request_in_progress` and `batch_in_progress` carry a Retry-After as well.
 * Remembers, per client and operation (method, path and Idempotency-Key), the earliest moment a retry
 * is allowed, and names the retries that came sooner. Bounded: old entries are dropped.
 */
export class RetryWatch {
  readonly #waits = new Map<string, Wait>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  /** Call before forwarding a request: a violation when the same operation retried too soon. */
  onRequest(key: string): Violation | undefined {
    const wait = this.#waits.get(key);
    if (!wait) return undefined;
    this.#waits.delete(key);
    const early = wait.notBefore - this.now();
    // A few milliseconds of clock and network jitter are not a broken rule.
    if (early <= 50) return undefined;
    const waited = (wait.retryAfterSeconds * 1000 - early) / 1000;
    return {
      rule: 'retry_after_ignored',
      spec: 'Errors — retry guidance; Limits',
      message: `Retried ${waited.toFixed(1)} s after a ${wait.status} whose Retry-After was ${wait.retryAfterSeconds} s.`,
    };
  }

  /** Call with each response: 409, 429 and 503 with a Retry-After set the earliest retry time. */
  onResponse(key: string, status: number, retryAfter: string | undefined): void {
    if (!WAITED_STATUSES.has(status)) return;
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
    if (seconds === undefined || seconds === 0) return;
    if (this.#waits.size >= this.maxEntries) {
      const oldest = this.#waits.keys().next().value;
      if (oldest !== undefined) this.#waits.delete(oldest);
    }
    this.#waits.set(key, { notBefore: this.now() + seconds * 1000, retryAfterSeconds: seconds, status });
  }
}

/** The operation a retry repeats: same client, method, path and Idempotency-Key. */
export function retryKey(client: string, method: string, path: string, idempotencyKey: string | undefined): string {
  return `${client} ${method} ${path} ${idempotencyKey ?? ''}`;
}
