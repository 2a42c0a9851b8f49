import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_LOG_SIZE, type ControlLogsQuery, type RequestLogEntry, type RequestLogPage } from '../../src/contract/control.js';
import { formatDate } from '../../src/contract/dates.js';
import { ENVIRONMENTS, type Environment } from '../../src/contract/store.js';
import { redactSecrets } from '../../src/logging/redact.js';
import { BASE_PATHS } from '../../src/contract/base-paths.js';
import type { Emulator } from '../emulator.js';
import { globMatcher } from '../faults.js';

/**
 * An entry as kept: raw values, formatted only when read (the hot path does no string work: `url`
 * keeps its query string until then). The ring's slots are made once and overwritten in turn, so a
 * request allocates nothing here.
 */
interface Kept {
  id: number;
  at: number;
  environment: Environment;
  method: string;
  url: string;
  status: number;
  code: string | null;
  requestId: string;
  durationMs: number;
  integrationId: string | null;
  storeId: string | null;
}

const emptySlot = (): Kept => ({
  id: 0, at: 0, environment: 'test', method: '', url: '', status: 0, code: null, requestId: '', durationMs: 0, integrationId: null, storeId: null,
});

/** The path of a request URL, without its query string. */
const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/**
 * A shared sandbox's log is read by many integrators at once, so one read does a bounded amount of
 * work (issue 24: 500-character globs over 1,000 paths of 2 KB held the event loop 4.5 s a read).
 * A path is kept to PATH_KEPT characters; the `path` glob's matching of one read stops after
 * READ_STEPS steps (a path's characters times the glob's, an upper bound of the matcher's work).
 */
export const PATH_KEPT = 256;
export const READ_STEPS = 4_000_000;

/** A long URL as kept: its path's first characters and `…`, without its query (never shown anyway). */
function keptUrl(url: string): string {
  const path = pathOf(url);
  return path.length <= PATH_KEPT ? path : `${path.slice(0, PATH_KEPT - 1)}…`;
}

/** Whose requests a reader sees: a store token's own store, in the environment its authorization resolved. */
export interface LogReader {
  storeId: string;
  environment: Environment;
}

/** Steps left to one read's path matching. */
interface Budget {
  steps: number;
}

type Filter = (entry: Kept) => boolean;

/**
 * The emulator's request log (`emulator logs tail`, GET /_emulator/logs): the last REQUEST_LOG_SIZE
 * API requests of both environments in a ring. Recording overwrites the fields of the oldest slot;
 * readers filter and format (synchronously: a slot is never read while it is written). Readers that found nothing may wait for the next entry (long poll).
 */
export class RequestLog {
  private readonly slots: Kept[] = Array.from({ length: REQUEST_LOG_SIZE }, emptySlot);
  /** Id of the newest entry (0 before the first). */
  private last = 0;
  private waiters = new Set<() => void>();
  /** Set when the emulator closes: no reader waits any more. */
  closed = false;

  /** Overwrites the oldest slot (positional arguments: no object per request). */
  record(
    at: number, environment: Environment, method: string, url: string, status: number, code: string | null,
    requestId: string, durationMs: number, integrationId: string | null, storeId: string | null,
  ): void {
    const id = ++this.last;
    const slot = this.slots[(id - 1) % REQUEST_LOG_SIZE];
    slot.id = id;
    slot.at = at;
    slot.environment = environment;
    slot.method = method;
    // A length check on the hot path; only a long URL is cut (once, here, not on every read).
    slot.url = url.length <= PATH_KEPT ? url : keptUrl(url);
    slot.status = status;
    slot.code = code;
    slot.requestId = requestId;
    slot.durationMs = durationMs;
    slot.integrationId = integrationId;
    slot.storeId = storeId;
    if (this.waiters.size > 0) this.wake();
  }

  /** Oldest id still kept. */
  private get first(): number {
    return Math.max(1, this.last - REQUEST_LOG_SIZE + 1);
  }

  private at(id: number): Kept {
    return this.slots[(id - 1) % REQUEST_LOG_SIZE];
  }

  /**
   * A page of the log as the control route answers it; `reader`: a store token's, which sees its
   * store's requests only. A page whose path matching used up READ_STEPS ends early: its
   * `next_after` is the last entry it looked at, and the next page goes on from there.
   */
  read(query: ControlLogsQuery, reader: LogReader | null = null): RequestLogPage {
    const budget: Budget = { steps: READ_STEPS };
    const filter = filterOf(query, reader, budget);
    if (query.tail !== undefined) return { entries: this.newest(query.tail, filter, budget).map(present), next_after: this.last, missed: 0 };
    const after = Math.min(query.after ?? 0, this.last);
    const start = Math.max(after + 1, this.first);
    const entries: Kept[] = [];
    let id = start;
    for (; id <= this.last && entries.length < query.limit && budget.steps > 0; id++) {
      const entry = this.at(id);
      if (filter(entry)) entries.push(entry);
    }
    // Entries that left the ring before this reader came back for them (none when it starts from the oldest).
    return { entries: entries.map(present), next_after: id - 1, missed: query.after === undefined ? 0 : start - after - 1 };
  }

  /** The newest `count` matching entries found within the budget, oldest first. */
  private newest(count: number, filter: Filter, budget: Budget): Kept[] {
    const found: Kept[] = [];
    for (let id = this.last; id >= this.first && found.length < count && budget.steps > 0; id--) {
      const entry = this.at(id);
      if (filter(entry)) found.push(entry);
    }
    return found.reverse();
  }

  /** Resolves when an entry newer than `after` is recorded, after `ms`, or when `cancel` fires. */
  waitForNewer(after: number, ms: number, cancel: (stop: () => void) => void): Promise<void> {
    if (this.last > after || ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      // Unref'd: a long poll never keeps a closing process alive.
      const timer = setTimeout(done, ms);
      timer.unref();
      this.waiters.add(done);
      cancel(done);
    });
  }

  /** Ends every wait for good: the emulator is closing. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Ends every wait at once (a new entry arrived). */
  private wake(): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const done of waiting) done();
  }
}

function filterOf(query: ControlLogsQuery, reader: LogReader | null, budget: Budget): Filter {
  const statuses = query.status?.map(statusTest) ?? null;
  const glob = query.path;
  const matches = glob === undefined ? null : globMatcher(glob);
  const path = (entry: Kept): boolean => {
    const text = pathOf(entry.url);
    budget.steps -= text.length * glob!.length;
    return matches!(text);
  };
  return (entry) =>
    (reader === null || (entry.storeId === reader.storeId && entry.environment === reader.environment)) &&
    (statuses === null || statuses.some((test) => test(entry.status))) && (matches === null || path(entry));
}

/** `409` matches that status, `4xx` the class. */
function statusTest(item: string): (status: number) => boolean {
  if (item.endsWith('xx')) {
    const hundred = Number(item[0]) * 100;
    return (status) => status >= hundred && status < hundred + 100;
  }
  const exact = Number(item);
  return (status) => status === exact;
}

function present(e: Kept): RequestLogEntry {
  return {
    id: e.id,
    time: formatDate(e.at),
    environment: e.environment,
    method: e.method,
    // Paths carry ids and codes, never a credential; masked all the same in case a client put one there.
    path: redactSecrets(pathOf(e.url)),
    status: e.status,
    error_code: e.code,
    request_id: e.requestId,
    duration_ms: Math.round(e.durationMs * 10) / 10,
    integration_id: e.integrationId,
    store_id: e.storeId,
  };
}

const logs = new WeakMap<Emulator, RequestLog>();

/** The emulator's one request log. */
export function requestLogOf(emulator: Emulator): RequestLog {
  let log = logs.get(emulator);
  if (!log) {
    logs.set(emulator, (log = new RequestLog()));
    emulator.onClose(() => log!.close());
  }
  return log;
}

/** `{"error":{"code":"…"` — the spec's error body as sendError writes it: its code, without parsing the JSON. */
const ERROR_CODE = /^\{"error":\{"code":"([a-z0-9_]+)"/;

/** The environment of an API path (`/v1/…`, `/sandbox/v1/…`), or null for the control API, the panel and the rest. */
function environmentOf(url: string): Environment | null {
  for (const environment of ENVIRONMENTS) {
    const base = BASE_PATHS[environment];
    if (!url.startsWith(base)) continue;
    const next = url.charCodeAt(base.length);
    // End of path, `/` or `?`: `/v1x` is not under `/v1`.
    if (Number.isNaN(next) || next === 47 || next === 63) return environment;
  }
  return null;
}

/**
 * The onSend hook that records every API request (both base paths; faults, 401s and 404s too) into
 * the log. A callback hook: a control or panel request costs two string comparisons, an API request
 * one object. The error code is read from the start of an error body, never the whole body.
 */
export function recordRequests(emulator: Emulator) {
  const log = requestLogOf(emulator);
  const clock = emulator.clock;
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, p?: unknown) => void): void => {
    const url = request.url;
    const environment = environmentOf(url);
    if (environment !== null) {
      const status = reply.statusCode;
      const auth = request.auth;
      const code = status >= 400 && typeof payload === 'string' ? (ERROR_CODE.exec(payload)?.[1] ?? null) : null;
      log.record(clock.now(), environment, request.method, url, status, code, request.id, reply.elapsedTime, auth ? auth.integration.id : null, auth ? auth.store.id : null);
    }
    done(null, payload);
  };
}
