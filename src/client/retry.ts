import { isLoopbackHost } from '../contract/hosts.js';
import { NETWORK_ERROR, type ApiError } from './errors.js';

/** spec: Errors, retry guidance — only these statuses (and network failures) are repeated. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export interface BackoffOptions {
  /** First delay; doubles on each retry (default 1000: 1, 2, 4, 8 s). */
  baseMs?: number;
  /** Cap of one delay before jitter (default 8000). `Retry-After` may ask for more and is honoured. */
  maxMs?: number;
  /** Fraction of random spread around the delay, 0..1 (default 0.2: ±20 %). */
  jitter?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 1000, maxMs: 8000, jitter: 0.2 };

/**
 * Whether a failed attempt may be repeated: network failures and the spec's retryable statuses.
 * A connection refused by a loopback address is not: nothing listens on that port of this machine
 * (an emulator that is not running), and waiting 15 s of backoff will not start it. Nor is a 429 of
 * an emulator whose clock is manual (isManualClockLimit): its minute ends only when someone advances
 * the clock, unless the caller does that itself between the tries (`manualClockLimits`).
 */
export function isRetryable(error: ApiError, options: { manualClockLimits?: boolean } = {}): boolean {
  if (error.code === NETWORK_ERROR) return !isRefusedOnLoopback(error);
  if (isManualClockLimit(error)) return Boolean(options.manualClockLimits);
  return RETRYABLE_STATUSES.has(error.status);
}

/** The header an emulator started with `--clock manual` sets on every API answer (docs/emulator.md). */
export const EMULATOR_CLOCK_HEADER = 'x-emulator-clock';

/**
 * True for a rate limit (429) of an emulator whose clock is manual (`X-Emulator-Clock: manual`): its
 * windows are minutes of that clock, which stands still, so `Retry-After` never comes. An injected
 * fault's 429 does not carry the header: it is used up, and a retry gets through.
 */
export function isManualClockLimit(error: Pick<ApiError, 'status' | 'headers'>): boolean {
  return error.status === 429 && error.headers[EMULATOR_CLOCK_HEADER] === 'manual';
}

/**
 * True for a network failure whose cause is ECONNREFUSED from a loopback address (127.0.0.0/8,
 * ::1, 127.x as an IPv4-mapped IPv6 address), read from the socket error that undici keeps as the
 * cause.
 */
export function isRefusedOnLoopback(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { code, address, errors } = e as { code?: unknown; address?: unknown; errors?: unknown };
    // Node's "happy eyeballs" reports each address tried in `errors` (an AggregateError).
    if (code === 'ECONNREFUSED' && Array.isArray(errors) && errors.length > 0) return errors.every((x) => isRefusedOnLoopback(x));
    if (code === 'ECONNREFUSED') return typeof address === 'string' && isLoopbackHost(address.replace(/^::ffff:/i, ''));
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The wait before retry number `retry` (0 for the first retry): `baseMs · 2^retry` capped at `maxMs`,
 * spread by ±`jitter`, and never shorter than the server's `Retry-After`.
 * @example retryDelay(2, null, { jitter: 0 }) === 4000; retryDelay(0, 3, { jitter: 0 }) === 3000
 */
export function retryDelay(retry: number, retryAfterSeconds: number | null, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const { baseMs, maxMs, jitter } = { ...DEFAULT_BACKOFF, ...options };
  const capped = Math.min(maxMs, baseMs * 2 ** retry);
  const spread = capped * jitter * (2 * random() - 1);
  const backoff = Math.max(0, Math.round(capped + spread));
  return retryAfterSeconds === null ? backoff : Math.max(backoff, Math.ceil(retryAfterSeconds * 1000));
}

/** A sleep that an abort signal ends early (rejecting with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
