import { redactSecrets } from '../logging/redact.js';

/** A usage error (exit 2) or a failure the CLI explains (exit 1). Only main.ts exits. */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/** Shorthand for a usage error: bad flags, a bad base URL, a missing credential. */
export function usageError(message: string): ExitError {
  return new ExitError(message, 2);
}

/** The target of the command in progress, so an API error can carry an environment hint. */
export interface TargetInfo {
  baseUrl: string;
  environment: 'live' | 'test';
}

let activeTarget: TargetInfo | undefined;

/** Called by context.ts once the target is resolved. */
export function rememberTarget(target: TargetInfo | undefined): void {
  activeTarget = target;
}

/** `/v1` is live, `/sandbox/v1` test; anything else is not known from the path. */
export function environmentOfPath(pathname: string): 'live' | 'test' | null {
  const path = pathname.replace(/\/+$/, '');
  if (path.endsWith('/sandbox/v1')) return 'test';
  if (path.endsWith('/v1')) return 'live';
  return null;
}

/** The base URL of `environment` on the same host: `…/v1` ⇄ `…/sandbox/v1`, or the origin plus the right path. */
export function baseUrlFor(baseUrl: string, environment: 'live' | 'test'): string {
  const url = new URL(baseUrl);
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/sandbox/v1')) path = path.slice(0, -'/sandbox/v1'.length);
  else if (path.endsWith('/v1')) path = path.slice(0, -'/v1'.length);
  return `${url.origin}${path}${environment === 'test' ? '/sandbox/v1' : '/v1'}`;
}

interface ApiErrorLike {
  status: number;
  code: string;
  message: string;
  details?: unknown;
  requestId?: string | null;
}

/** The per-field problems of a validation error, on the same line: `name: message; price: message`. */
function fieldDetails(details: unknown): string {
  if (!Array.isArray(details) || details.length === 0) return '';
  const shown = details.slice(0, 5).map((d: { field?: string; message?: string }) => `${d.field || '(body)'}: ${d.message ?? ''}`);
  return ` — ${shown.join('; ')}${details.length > 5 ? `; and ${details.length - 5} more` : ''}`;
}

function isApiError(error: unknown): error is Error & ApiErrorLike {
  return (
    error instanceof Error &&
    (error.name === 'ApiError' || error.constructor?.name === 'ApiError') &&
    typeof (error as Partial<ApiErrorLike>).status === 'number' &&
    typeof (error as Partial<ApiErrorLike>).code === 'string'
  );
}

/** A hint for errors that usually mean the wrong base URL or environment. */
function environmentHint(error: ApiErrorLike): string | null {
  const target = activeTarget;
  if (!target) return null;
  const pathEnv = environmentOfPath(new URL(target.baseUrl).pathname);
  const suggestion = baseUrlFor(target.baseUrl, target.environment);
  if (error.status === 401 && pathEnv !== target.environment) {
    return `hint: the credential is a ${target.environment} credential; did you mean ${suggestion}?`;
  }
  if (error.status === 404 && error.code === 'not_found' && pathEnv === null) {
    return `hint: the base URL should end in /v1 (live) or /sandbox/v1 (test); did you mean ${suggestion}?`;
  }
  return null;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
]);

function networkCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

export interface ErrorReport {
  /** Lines for stderr, already redacted. */
  lines: string[];
  exitCode: 1 | 2;
}

/** One line for a request that got no HTTP answer, naming the target when one is known. */
function unreachable(detail: string): ErrorReport {
  const where = activeTarget ? ` ${activeTarget.baseUrl}` : '';
  return { lines: [redactSecrets(`error: could not reach${where} (${detail})`)], exitCode: 1 };
}

/**
 * How main.ts reports an error: an API error is one line with its Spanish message, code and
 * request id (exit 1), plus an environment hint when it fits; an ExitError keeps its code; anything
 * else is one redacted line (exit 1), with the redacted stack only under `--verbose`.
 */
export function describeError(error: unknown, options: { verbose?: boolean } = {}): ErrorReport {
  if (error instanceof ExitError) return { lines: [redactSecrets(error.message)], exitCode: error.exitCode };
  // The client's network failure: no HTTP answer at all.
  if (isApiError(error) && error.status === 0) return unreachable(networkCode(error) ?? error.message);
  if (isApiError(error)) {
    const request = error.requestId ? `, request_id ${error.requestId}` : '';
    const lines = [redactSecrets(`error: ${error.message}${fieldDetails(error.details)} (${error.status} ${error.code}${request})`)];
    const hint = environmentHint(error);
    if (hint) lines.push(hint);
    return { lines, exitCode: 1 };
  }
  const code = networkCode(error);
  if (code) return unreachable(code);
  const message = error instanceof Error ? error.message : String(error);
  const lines = [redactSecrets(`error: ${message.split('\n')[0] || 'unexpected failure'}`)];
  if (options.verbose && error instanceof Error && error.stack) lines.push(redactSecrets(error.stack));
  return { lines, exitCode: 1 };
}
