import { redactSecrets } from '../logging/redact.js';
import { isLoopbackHost } from '../contract/hosts.js';
import { baseUrlFor, environmentOfPath } from '../contract/base-paths.js';
import { isManualClockLimit } from '../client/retry.js';

/** What an ExitError adds for `--json`: a code for scripts (`usage_error` by default for exit 2) and details. */
export interface ExitInfo {
  code?: string;
  details?: unknown;
  /** The next step, printed as a `hint: …` line after the message (`hint` under --json). */
  hint?: string;
}

/**
 * Exit codes: 1 an API or check failure, 2 a usage error, 128 + the signal's number for work that a
 * signal stopped before its end (130 for Ctrl+C), as a shell reports a process the signal killed.
 */
export type ExitCode = 1 | 2 | 130 | 143;

/** A usage error (exit 2) or a failure the CLI explains (exit 1). Only main.ts exits. */
export class ExitError extends Error {
  readonly code: string;
  readonly details: unknown;
  readonly hint: string | undefined;

  constructor(
    message: string,
    readonly exitCode: ExitCode = 1,
    info: ExitInfo = {},
  ) {
    super(message);
    this.name = 'ExitError';
    this.code = info.code ?? (exitCode === 2 ? USAGE_ERROR : COMMAND_FAILED);
    this.details = info.details ?? null;
    this.hint = info.hint;
  }
}

/** The `--json` code of usage errors (exit 2): bad flags, arguments, files or targets. docs/cli.md lists the codes. */
export const USAGE_ERROR = 'usage_error';
/** The `--json` code of a failure the CLI itself reports (exit 1) when it has no more precise one. */
export const COMMAND_FAILED = 'command_failed';
/** The `--json` code of an unexpected failure inside the CLI (a bug: please report it). */
export const UNEXPECTED_ERROR = 'unexpected_error';

/** Shorthand for a usage error: bad flags, a bad base URL, a missing credential. */
export function usageError(message: string, details?: unknown): ExitError {
  return new ExitError(message, 2, { details });
}

/** The target of the command in progress, so an API error can carry an environment hint. */
export interface TargetInfo {
  baseUrl: string;
  environment: 'live' | 'test';
}

let activeTarget: TargetInfo | undefined;

/** Next steps a command attached to an API error it lets through (withHint). */
const hints = new WeakMap<object, string>();

/**
 * Attaches the next step to an API error a command lets through: main.ts prints it as a `hint: …`
 * line after the API's own (and as `hint` under --json). Returns the error, to rethrow it.
 */
export function withHint<E>(error: E, hint: string): E {
  if (error !== null && typeof error === 'object') hints.set(error, hint);
  return error;
}

/** Called by context.ts once the target is resolved. */
export function rememberTarget(target: TargetInfo | undefined): void {
  activeTarget = target;
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

/** The state of a state error (DESIGN: `{current_status}`, `{expected_part}`), on the same line: `current_status: completed`. */
function stateDetails(details: unknown): string {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return '';
  const shown = Object.entries(details).map(([k, v]) => `${k}: ${typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v)}`);
  return shown.length ? ` — ${shown.join('; ')}` : '';
}

function isApiError(error: unknown): error is Error & ApiErrorLike {
  return (
    error instanceof Error &&
    (error.name === 'ApiError' || error.constructor?.name === 'ApiError') &&
    typeof (error as Partial<ApiErrorLike>).status === 'number' &&
    typeof (error as Partial<ApiErrorLike>).code === 'string'
  );
}

/**
 * A 429 of an emulator whose clock is manual (`X-Emulator-Clock: manual`, see the client's
 * isManualClockLimit): not retried, since its minute ends only when the clock moves; the way out.
 */
function manualClockHint(error: ApiErrorLike & { headers?: Record<string, string> }): string | null {
  if (!isManualClockLimit({ status: error.status, headers: error.headers ?? {} })) return null;
  return "hint: the emulator's clock is manual, so its rate-limit minute ends only when the clock moves: merchant-kit emulator clock advance 60s (or start it with --limits off)";
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

/** The socket error behind a failure (its code, and the address and port it tried), searched through the causes. */
function socketError(error: unknown): { code: string; address?: string; port?: number } | null {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { code, address, port } = e as { code?: unknown; address?: unknown; port?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) {
      return { code, ...(typeof address === 'string' ? { address } : {}), ...(typeof port === 'number' ? { port } : {}) };
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** The `--json` form of an error: the API's error body (`{error: {code, message, details, request_id}}`) plus the HTTP status. */
export interface JsonError {
  error: {
    /** The HTTP status of an API answer; null when the CLI itself reports (usage errors, no answer). */
    status: number | null;
    code: string;
    message: string;
    details: unknown;
    request_id: string | null;
    hint?: string;
  };
}

export interface ErrorReport {
  /** Lines for stderr, already redacted. */
  lines: string[];
  exitCode: ExitCode;
  /** What `--json` prints instead of `lines`: one object, already redacted. */
  json: JsonError;
}

/** `error: …` without its prefix, for the JSON message. */
const bare = (line: string) => line.replace(/^error:\s*/, '');

function report(lines: string[], exitCode: ExitCode, error: Omit<JsonError['error'], 'message' | 'hint'> & { message?: string }): ErrorReport {
  const redacted = lines.map((l) => redactSecrets(l));
  const hint = redacted.find((l) => l.startsWith('hint: '));
  const details = error.details === null || error.details === undefined ? null : JSON.parse(redactSecrets(JSON.stringify(error.details)));
  const json: JsonError = {
    error: {
      status: error.status,
      code: error.code,
      message: redactSecrets(error.message ?? bare(redacted[0] ?? '')),
      details,
      request_id: error.request_id,
      ...(hint ? { hint: hint.slice('hint: '.length) } : {}),
    },
  };
  return { lines: redacted, exitCode, json };
}

/**
 * One line for a request that got no HTTP answer, naming the target when one is known. A refused
 * connection to this machine is almost always an emulator that is not running: the line says so.
 */
function unreachable(detail: string, socket: ReturnType<typeof socketError>): ErrorReport {
  const where = activeTarget?.baseUrl ?? (socket?.address && socket.port ? `http://${socket.address.includes(':') ? `[${socket.address}]` : socket.address}:${socket.port}` : undefined);
  const host = where ? new URL(where).hostname.replace(/^\[|\]$/g, '') : socket?.address;
  const local = socket?.code === 'ECONNREFUSED' && host !== undefined && isLoopbackHost(host.replace(/^::ffff:/i, ''));
  const advice = local ? ': is the emulator running? Start it with "merchant-kit emulator start", or point --base-url at the one you use' : '';
  const line = `error: could not reach${where ? ` ${where}` : ''} (${detail})${advice}`;
  return report([line], 1, { status: null, code: 'network_error', details: { cause: socket?.code ?? detail, ...(where ? { url: where } : {}) }, request_id: null });
}

/**
 * How main.ts reports an error: an API error is one line with its Spanish message, the details of a
 * validation or state error, code and request id (exit 1), plus an environment hint when it fits;
 * an ExitError keeps its code; anything else is one redacted line (exit 1), with the redacted stack
 * only under `--verbose`. `json` is the same error as one object, for `--json`.
 */
export function describeError(error: unknown, options: { verbose?: boolean } = {}): ErrorReport {
  if (error instanceof ExitError) {
    const lines = error.hint ? [error.message, `hint: ${error.hint}`] : [error.message];
    return report(lines, error.exitCode, { status: null, code: error.code, details: error.details, request_id: null });
  }
  // The client's network failure: no HTTP answer at all.
  if (isApiError(error) && error.status === 0) {
    const socket = socketError(error);
    return error.code === 'network_error' ? unreachable(socket?.code ?? error.message, socket) : report([`error: ${error.message}`], 1, { status: null, code: error.code, details: null, request_id: null });
  }
  if (isApiError(error)) {
    const request = error.requestId ? `, request_id ${error.requestId}` : '';
    const lines = [`error: ${error.message}${fieldDetails(error.details)}${stateDetails(error.details)} (${error.status} ${error.code}${request})`];
    const given = hints.get(error);
    const hint = given ? `hint: ${given}` : manualClockHint(error) ?? environmentHint(error);
    if (hint) lines.push(hint);
    return report(lines, 1, { status: error.status, code: error.code, message: error.message, details: error.details ?? null, request_id: error.requestId ?? null });
  }
  const socket = socketError(error);
  if (socket) return unreachable(socket.code, socket);
  const message = error instanceof Error ? error.message : String(error);
  const lines = [`error: ${message.split('\n')[0] || 'unexpected failure'}`];
  const described = report(lines, 1, { status: null, code: UNEXPECTED_ERROR, details: null, request_id: null });
  if (options.verbose && error instanceof Error && error.stack) described.lines.push(redactSecrets(error.stack));
  return described;
}
