import type { Dispatcher } from 'undici';
import { ApiError, CLIENT_CLOSED, errorFromResponse, INVALID_REQUEST, INVALID_RESPONSE, networkError } from './errors.js';
import { isRetryable, retryDelay, sleep as realSleep, type BackoffOptions } from './retry.js';
import { openPool, type Pool } from './pool.js';
import type { ResponseInfo, RetryInfo } from './types.js';

export interface TransportOptions {
  baseUrl: string;
  /** The `Authorization` value, read at send time from the owner's private field (never stored here). */
  authorization: () => string | null;
  /** Retries after a retryable failure, already a whole number ≥ 0 (`count`). */
  maxRetries: number;
  /** Per attempt; missing, 0 or not a finite number: `DEFAULT_TIMEOUT_MS`. */
  timeoutMs?: number;
  userAgent: string;
  dispatcher?: Dispatcher;
  backoff?: BackoffOptions;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
  onResponse?: (info: ResponseInfo) => void;
  /** Retry a manual-clock emulator's rate limit too (a caller that advances the clock in `sleep`). */
  retryManualClockLimits?: boolean;
  /** The pool's maker: the module's own unless given (test/client/pools.test.ts runs the CLI's in-process). */
  openPool?: (dispatcher?: Dispatcher) => Pool;
}

export interface HttpCall {
  endpointId: string;
  method: string;
  /** Relative to the base URL, query included. */
  path: string;
  /** JSON-encoded when defined; `undefined` sends no body. */
  body?: unknown;
  /** Send `Content-Type: application/json` even without a body (the control API requires it on writes). */
  alwaysJsonType?: boolean;
  idempotencyKey: string | null;
  maxRetries?: number;
  signal?: AbortSignal;
  onResponse?: (info: ResponseInfo) => void;
  /** A 2xx body is returned as bytes (a Buffer), not parsed: downloads such as the state bundle. */
  raw?: boolean;
  /** This call's `Authorization` instead of the owner's (an access request's claim secret): a function, like the owner's, so that no call keeps it. */
  authorization?: () => string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  requestId: string | null;
  replayed: boolean;
  attempts: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Per attempt, when the owner gives no timeout (MerchantClient and EmulatorControl alike). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A whole number ≥ 0 from an option, or the default when it is missing or not a finite number. */
export function count(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : fallback;
}

/**
 * One keep-alive connection pool per client and the retry loop: repeat after 429, 500, 502, 503, 504
 * and network failures with exponential backoff and `Retry-After`, the same Idempotency-Key each time.
 */
export class Transport {
  readonly #options: TransportOptions & { timeoutMs: number };
  readonly #pool: Pool;
  #closed = false;

  constructor(options: TransportOptions) {
    this.#options = {
      ...options,
      timeoutMs: count(options.timeoutMs, DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
    };
    // One pool per client: connections are reused across calls (keep-alive) and closed by close().
    this.#pool = (options.openPool ?? openPool)(options.dispatcher);
  }

  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  async send(call: HttpCall): Promise<HttpResult> {
    if (this.#closed) throw new ApiError({ status: 0, code: CLIENT_CLOSED, message: `${call.method} ${call.path}: the client was closed` });
    // NaN and negatives mean a single attempt.
    const maxRetries = Math.max(0, Math.floor(call.maxRetries ?? this.#options.maxRetries)) || 0;
    for (let attempt = 1; ; attempt++) {
      let error: ApiError;
      try {
        const result = await this.#attempt(call, attempt);
        if (result.status >= 200 && result.status < 300) return { ...result, attempts: attempt };
        error = errorFromResponse(result.status, result.body, result.headers);
      } catch (caught) {
        if (call.signal?.aborted) throw call.signal.reason;
        if (!(caught instanceof ApiError)) throw caught;
        error = caught;
      }
      if (!isRetryable(error, { manualClockLimits: this.#options.retryManualClockLimits }) || attempt > maxRetries) throw error;
      const delayMs = retryDelay(attempt - 1, error.retryAfter, this.#options.backoff, this.#options.random);
      this.#options.onRetry?.({
        endpointId: call.endpointId, method: call.method, path: call.path, retry: attempt, delayMs, error, idempotencyKey: call.idempotencyKey,
      });
      await (this.#options.sleep ?? realSleep)(delayMs, call.signal);
    }
  }

  /** One HTTP exchange; a network failure or timeout becomes an ApiError with status 0. */
  async #attempt(call: HttpCall, attempt: number): Promise<Omit<HttpResult, 'attempts'>> {
    const started = performance.now();
    const deadline = attemptSignal(this.#options.timeoutMs, call.signal);
    // Serialized before the exchange: a body that cannot be JSON is the caller's error, never retried.
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    let status: number;
    let headers: Record<string, string>;
    let bytes: Buffer;
    try {
      const answer = await this.#pool.send(`${this.#options.baseUrl}${call.path}`, {
        method: call.method,
        headers: this.#headers(call),
        body: payload,
        signal: deadline.signal,
      });
      status = answer.status;
      headers = flattenHeaders(answer.headers);
      bytes = answer.bytes;
      // The pool gets the socket back just after the body ends; yielding once lets the next call find
      // it idle instead of opening a second connection.
      await new Promise((resolve) => setImmediate(resolve));
    } catch (cause) {
      if (call.signal?.aborted) throw call.signal.reason;
      // The request refused before it was sent (a header with a line break): not a network failure.
      if (this.#pool.refused(cause)) {
        throw new ApiError({ status: 0, code: INVALID_REQUEST, message: `${call.method} ${call.path}: the request is invalid`, cause });
      }
      const what = deadline.timedOut() ? `No answer within ${this.#options.timeoutMs} ms from ${call.method} ${call.path}` : `${call.method} ${call.path} failed`;
      throw networkError(cause, what);
    } finally {
      deadline.dispose();
    }
    const requestId = headers['x-request-id'] ?? null;
    const replayed = headers['idempotent-replay'] === 'true';
    const info: ResponseInfo = {
      endpointId: call.endpointId, method: call.method, path: call.path, status, requestId, replayed, attempt,
      idempotencyKey: call.idempotencyKey, durationMs: Math.round(performance.now() - started), headers,
    };
    this.#options.onResponse?.(info);
    call.onResponse?.(info);
    const ok = status >= 200 && status < 300;
    const body = call.raw && ok ? bytes : parseJson(bytes.toString('utf8'), status, requestId, headers);
    return { status, headers, body, requestId, replayed };
  }

  #headers(call: HttpCall): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#options.userAgent };
    const authorization = call.authorization ? call.authorization() : this.#options.authorization();
    if (authorization !== null) headers.authorization = authorization;
    if (call.body !== undefined || call.alwaysJsonType) headers['content-type'] = JSON_TYPE;
    if (call.idempotencyKey !== null) headers['idempotency-key'] = call.idempotencyKey;
    return headers;
  }

  /** Closes the pool this transport made (a dispatcher passed in by the caller is theirs to close). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.close();
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The body as JSON; errors are read loosely (a proxy's HTML 502 still retries), a 2xx must be JSON. */
function parseJson(text: string, status: number, requestId: string | null, headers: Record<string, string>): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) return undefined;
    throw new ApiError({ status, code: INVALID_RESPONSE, message: `HTTP ${status} with a body that is not JSON`, requestId, headers });
  }
}

/**
 * The signal of one attempt: aborted by its timeout or by the caller's signal. Built by hand rather
 * than with `AbortSignal.any` so that a long-lived caller signal (a `feed tail` running for days)
 * keeps no listener per call once `dispose()` ran.
 */
function attemptSignal(timeoutMs: number, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
