import { ApiError, isManualClockLimit, isRetryable, retryDelay, type MerchantClient } from '../../../../client/index.js';
// A wait that a stop (Ctrl+C) ends at once, rejecting with the signal's reason.
import { sleep } from '../../../../client/retry.js';
import type { BatchResponse } from '../../../../contract/catalog.js';
import { backoffFromEnv } from '../../../context.js';
import type { Progress } from './progress.js';

/** How long one batch may wait for the limits (429, batch_in_progress) before the sync gives up. */
const MAX_WAIT_SECONDS = 15 * 60;
/** Failures (5xx, network) of one batch repeated with backoff before it counts as failed. */
const MAX_FAILURES = 6;

const WAIT_CODES = new Set(['batch_in_progress', 'request_in_progress']);

export type BatchBody = Parameters<MerchantClient['catalog']['batch']>[0];

export interface SentBatch {
  data: BatchResponse;
  replayed: boolean;
}

/**
 * Sends one batch with its Idempotency-Key, and keeps it going under the spec's limits: 429
 * `rate_limited` (10 batches a minute) and 409 `batch_in_progress` / `request_in_progress` (one batch
 * at a time) wait Retry-After and send the same request again; 5xx and network failures back off
 * (1, 2, 4, 8 s, honouring Retry-After). The key stays the same, so nothing applies twice.
 */
export async function sendBatch(client: MerchantClient, body: BatchBody, key: string, progress: Progress, signal?: AbortSignal): Promise<SentBatch> {
  let waited = 0;
  let failures = 0;
  for (;;) {
    let replayed = false;
    try {
      const data = await client.catalog.batch(body, { idempotencyKey: key, maxRetries: 0, onResponse: (r) => (replayed ||= r.replayed) });
      return { data: data as BatchResponse, replayed };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // An emulator's manual clock never ends the minute by itself (main.ts names the way out).
      if (isManualClockLimit(error)) throw error;
      const limited = error.status === 429 || (error.status === 409 && WAIT_CODES.has(error.code));
      if (limited && waited < MAX_WAIT_SECONDS) {
        const seconds = Math.max(1, Math.ceil(error.retryAfter ?? 1));
        progress.waiting(seconds, `${error.status} ${error.code}`);
        waited += seconds;
        await sleep(seconds * 1000, signal);
      } else if (!limited && isRetryable(error) && ++failures < MAX_FAILURES) {
        // MERCHANT_KIT_RETRY_BASE_MS shortens the backoff in tests, as it does for the client's own retries.
        const ms = retryDelay(failures - 1, error.retryAfter, backoffFromEnv());
        progress.waiting(Math.round(ms / 100) / 10, `${error.status || 'network'} ${error.code}`);
        await sleep(ms, signal);
      } else throw error;
    }
  }
}
