// How the PostgreSQL adapter tells a database it cannot reach from everything else, so the HTTP layer
// can answer 503 `maintenance` with Retry-After (never a 500 and a stack) while the pool reconnects.

import { StorageUnavailableError } from '../../store/errors.js';

export { StorageUnavailableError };

// Node's socket errors: the server is down, restarting, or the network between is cut.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

// SQLSTATEs of a server that cannot serve right now: class 08 (connection exception), the
// administrator or a crash ending the session (57P01–57P03), too many connections, and a standby.
// Also those that refuse a new session only (the pool opens one after a lost connection): the
// database taken out of service (ALTER DATABASE … ALLOW_CONNECTIONS false, below), dropped or
// renamed (3D000), or the role's password or pg_hba.conf changed (28P01, 28000).
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '25006', '3D000', '28P01', '28000']);

// 55000 (object not in prerequisite state) is mostly something else; this message is the session refused.
const REFUSED_SESSION = /is not currently accepting connections/;

// node-postgres's own words when a socket closed under a query or the pool could not connect in time.
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection terminated unexpectedly',
];

/**
 * True for an error that means "the database is not reachable now": the HTTP layer maps it to 503
 * `maintenance` with Retry-After. The operation did not take effect (a transaction cut off before
 * COMMIT rolls back), and the next one reconnects by itself (the pool drops broken connections).
 * Everything else (a constraint, a bug) is false and stays a 500.
 */
export function isDriverUnavailable(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true;
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
  if (code === '55000' && typeof e.message === 'string' && REFUSED_SESSION.test(e.message)) return true;
  // A connection refused on every address of a host name arrives as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every(isDriverUnavailable)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return DRIVER_MESSAGES.some((m) => message.startsWith(m));
}

/** The error as this adapter throws it: unavailability as StorageUnavailableError, the rest unchanged. */
export function translate(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || !isDriverUnavailable(error)) return error;
  return new StorageUnavailableError(reasonOf(error), { cause: error });
}

/** A short reason for one line: the socket code or the server's message. */
export function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; errors?: { code?: unknown }[] };
  if (Array.isArray(e.errors) && e.errors[0]?.code) return describeCode(String(e.errors[0].code));
  if (typeof e.code === 'string' && SOCKET_CODES.has(e.code)) return describeCode(e.code);
  return String(e.message ?? error).split('\n')[0]!;
}

function describeCode(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ETIMEDOUT':
      return 'timed out';
    default:
      return code;
  }
}

/** SQLSTATEs after which the whole unit of work is run again (env-store.ts says why each is safe). */
export const SERIALIZATION_FAILURE = '40001';
export const DEADLOCK = '40P01';
export const UNIQUE_VIOLATION = '23505';

/**
 * How many times a statement or a unit of work runs at most when PostgreSQL keeps rolling it back
 * for another transaction's sake (40001, 40P01): each run after the first waits a short random pause.
 */
export const CONTENTION_RUNS = 5;

/** PostgreSQL rolled the statement's transaction back so that another could go on (nothing of it stays). */
export function isContention(error: unknown): boolean {
  const state = sqlState(error);
  return state === SERIALIZATION_FAILURE || state === DEADLOCK;
}

/**
 * The error a request gets once its runs are spent: contention that outlasted them is the database
 * being too busy to serve it now, so the HTTP layer answers 503 `maintenance` with Retry-After (the
 * spec's retryable answer), never a 500; nothing of the request was applied. Any other error as is.
 */
export function contended(error: unknown): unknown {
  if (!isContention(error)) return error;
  const reason = sqlState(error) === DEADLOCK ? 'deadlock' : 'serialization failure';
  return new StorageUnavailableError(`${reason}, ${CONTENTION_RUNS} runs`, { cause: error });
}

/** A short random pause before running again, growing with each run: two colliding transactions part ways. */
export const contentionPause = (run: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * run));

/**
 * The connection's session is gone: the server ended it (57P01 an administrator or a restart, 57P02
 * another backend's crash), or its socket was closed under the statement (EPIPE, ECONNRESET, the
 * driver's "Connection terminated unexpectedly"). A connection idle in the pool can lose its session
 * before the driver has read the news, and is then handed out; its first statement meets the closed
 * socket or the server's notice without having run, and runs again on another connection
 * (connect.ts, env-store.ts). A failed connect is not this (ECONNREFUSED: the server is down, and
 * trying again at once would only wait for the same refusal).
 */
export function sessionGone(error: unknown): boolean {
  const state = sqlState(error);
  if (state === '57P01' || state === '57P02') return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 'EPIPE' || e?.code === 'ECONNRESET' || e?.message === 'Connection terminated unexpectedly';
}

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
