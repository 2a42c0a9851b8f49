import type { ErrorDetails, FieldIssue } from '../contract/errors.js';
import { redactSecrets } from '../logging/redact.js';

/** One field-level problem of a `validation_failed` answer (the contract's own type). */
export type ApiFieldIssue = FieldIssue;

/** A list per field for validation errors; an object for state errors (`current_status`, `expected_part`). */
export type ApiErrorDetails = ErrorDetails;

/** Codes the client itself produces (status 0): the request never got an HTTP answer. */
export const NETWORK_ERROR = 'network_error';
/** A call on a client after its `close()` (status 0, never retried). */
export const CLIENT_CLOSED = 'client_closed';
/** The request could not be sent as given (status 0, never retried). */
export const INVALID_REQUEST = 'invalid_request';
/** The server answered with something that is not the spec's JSON (a proxy's HTML page, a truncated body). */
export const INVALID_RESPONSE = 'invalid_response';

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ApiErrorDetails;
  requestId?: string | null;
  retryAfter?: number | null;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error class of the client: every failed call rejects with it. `status` is the HTTP status
 * (0 when no answer arrived: `code` is then `network_error`), `code` the spec's code for automatic
 * handling, `message` the API's Spanish message (shown to people as is), `details` the per-field list
 * or the state object, `requestId` the `X-Request-Id` to quote to support, `retryAfter` the seconds
 * of `Retry-After` when the server sent one.
 * @example
 * try { await client.orders.setStatus(id, { status: 'ready' }); }
 * catch (e) { if (e instanceof ApiError && e.code === 'invalid_status_transition') console.log(e.details); }
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ApiErrorDetails | undefined;
  readonly requestId: string | null;
  readonly retryAfter: number | null;
  readonly headers: Record<string, string>;

  constructor(init: ApiErrorInit) {
    // Messages of network failures come from the socket layer: masked in case a URL carried a secret.
    super(redactSecrets(init.message), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.headers = init.headers ?? {};
  }

  /** True when no HTTP answer arrived (connection refused or reset, DNS, timeout). */
  get isNetworkError(): boolean {
    return this.code === NETWORK_ERROR;
  }

  /** The per-field issues of a validation error (empty for other errors). */
  get fieldIssues(): ApiFieldIssue[] {
    return Array.isArray(this.details) ? this.details : [];
  }

  /** A plain view for logs and `--json` output: the spec's error shape plus the status. */
  toJSON(): { status: number; code: string; message: string; details?: ApiErrorDetails; request_id: string | null } {
    const out: ReturnType<ApiError['toJSON']> = { status: this.status, code: this.code, message: this.message, request_id: this.requestId };
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

/** The error for an answer that is not 2xx, from the spec's error body when there is one. */
export function errorFromResponse(status: number, body: unknown, headers: Record<string, string>): ApiError {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  const requestId = typeof error?.request_id === 'string' ? error.request_id : (headers['x-request-id'] ?? null);
  const retryAfter = parseRetryAfter(headers['retry-after']);
  if (error && typeof error.code === 'string') {
    return new ApiError({
      status,
      code: error.code,
      message: typeof error.message === 'string' ? error.message : `HTTP ${status}`,
      details: error.details as ApiErrorDetails | undefined,
      requestId,
      retryAfter,
      headers,
    });
  }
  // Not the spec's body (a gateway's page): keep the status, name it after the HTTP class.
  return new ApiError({ status, code: status >= 500 ? 'internal_error' : INVALID_RESPONSE, message: `HTTP ${status} without an API error body`, requestId, retryAfter, headers });
}

/** A failure before any HTTP answer. */
export function networkError(cause: unknown, what: string): ApiError {
  // A system error's code (ECONNREFUSED) says most; a DOMException's code is a legacy number (a
  // timeout's is 23), so its name says it instead (TimeoutError).
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  const reason = typeof code === 'string' ? code : cause instanceof Error ? (typeof code === 'number' ? cause.name : cause.message) : String(cause);
  return new ApiError({ status: 0, code: NETWORK_ERROR, message: `${what}: ${reason}`, cause });
}

/**
 * `Retry-After` in seconds (spec) or as an HTTP date; null when absent or unreadable.
 * @example parseRetryAfter('3') === 3
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
