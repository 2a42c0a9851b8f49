import { Writable } from 'node:stream';
import { request as undiciRequest } from 'undici';
import { startEmulator, type ReadyInfo, type RunningEmulator } from '../../emulator/server.js';
import type { EmulatorOptions } from '../../emulator/emulator.js';
import type { SqliteStorage } from '../../emulator/adapters/sqlite/index.js';
import type { Db } from '../../emulator/adapters/sqlite/open.js';
import type { Environment } from '../../src/contract/store.js';

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Defaults to the seeded store's credential of the environment; `null` sends none. */
  credential?: string | null;
  idempotencyKey?: string;
}

export interface TestEmulator {
  running: RunningEmulator;
  url: string;
  /** The seeded test (sandbox) store. */
  test: RunningEmulator['stores'][number];
  live: RunningEmulator['stores'][number];
  /** Calls the sandbox API (`/sandbox/v1` + path) with the seeded test credential. */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<Response<T>>;
  /** Calls the live API (`/v1` + path) with the seeded live credential. */
  liveApi<T = any>(method: string, path: string, options?: CallOptions): Promise<Response<T>>;
  /** Calls the control API (`/_emulator` + path). */
  control<T = any>(method: string, path: string, body?: unknown): Promise<Response<T>>;
  close(): Promise<void>;
}

/**
 * The headers fetch() adds to every request (undici's defaults): the requests of these helpers stay
 * the ones the tests were written against (Accept-Language picks the access page's language).
 */
const FETCH_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * One request as fetch() sends it (its default headers, a text body as `text/plain;charset=UTF-8`,
 * redirects followed), through undici's `request`: real HTTP on a kept-alive connection, for a fifth
 * of fetch()'s CPU (its web streams and Request/Response objects; issue 27: the suite sends tens of
 * thousands of requests through these helpers).
 */
export async function request<T = any>(url: string, method: string, options: CallOptions & { credential?: string | null } = {}): Promise<Response<T>> {
  const headers: Record<string, string> = { ...FETCH_HEADERS };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.credential) headers.authorization = `Bearer ${options.credential}`;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  if (body !== undefined) headers['content-type'] ??= 'text/plain;charset=UTF-8';
  let res = await undiciRequest(url, { method, headers, body });
  // fetch's redirect rules: a 303, or a 301/302 to a POST, goes on as a GET without a body.
  for (let hops = 0; REDIRECTS.has(res.statusCode) && res.headers.location !== undefined; hops++) {
    if (hops === 20) throw new Error(`${method} ${url}: more than 20 redirects`);
    await res.body.dump();
    url = new URL(String(res.headers.location), url).href;
    if (res.statusCode === 303 ? method !== 'HEAD' : [301, 302].includes(res.statusCode) && method === 'POST') {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    res = await undiciRequest(url, { method, headers, body });
  }
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, headers: headersOf(res.headers), body: parsed as T };
}

/** undici's header record as fetch's Headers (a repeated header is one value per line, as it came). */
function headersOf(record: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}

/** The seeded stores of a ready line and calls to its API and control API with their credentials. */
export function readyCalls(ready: ReadyInfo): Pick<TestEmulator, 'test' | 'live' | 'api' | 'liveApi' | 'control'> {
  const test = ready.stores.find((s) => s.environment === 'test')!;
  const live = ready.stores.find((s) => s.environment === 'live')!;
  const call = (base: string, fallback: string) => (method: string, path: string, o: CallOptions = {}) =>
    request(`${base}${path}`, method, { ...o, credential: o.credential === undefined ? fallback : o.credential });
  return {
    test,
    live,
    api: call(ready.sandbox_base_url, test.credential),
    liveApi: call(ready.live_base_url, live.credential),
    // The control API takes writes only as JSON, body or not (DESIGN, Safety of a local dev server).
    control: (method, path, body) => request(`${ready.admin_url}${path}`, method, { body, headers: { 'content-type': 'application/json' } }),
  };
}

/**
 * The storage the HTTP-level emulator tests run on: `sqlite` (in memory, the default) or `postgres`
 * (a fresh database on MERCHANT_KIT_TEST_DATABASE_URL's server per emulator). vitest.config.ts runs
 * test/emulator a second time with `postgres` (issue 17: the whole suite on both adapters).
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.MERCHANT_KIT_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * An in-process emulator on a free port, with the manual clock unless told otherwise: in memory, or
 * on a database of its own (a copy of the run's migrated template, dropped at close) when the run is
 * the PostgreSQL one. A test that names its storage (a data folder, `memory`, a database URL) gets
 * that storage on either run.
 */
export async function startTestEmulator(given: EmulatorOptions = {}): Promise<TestEmulator> {
  // The tests' receivers and image servers listen on loopback, which a shared sandbox (an admin
  // token, a database) refuses unless told: told here, unless the test says otherwise.
  const options: EmulatorOptions = 'allowLoopbackTargets' in given ? given : { ...given, allowLoopbackTargets: true };
  const namesStorage = options.data !== undefined || options.memory !== undefined || options.databaseUrl !== undefined;
  if (TEST_STORE === 'postgres' && !namesStorage) {
    const { createTestDatabase } = await import('./postgres.js');
    const database = await createTestDatabase({ migrated: true });
    try {
      const running = await startEmulator({ port: 0, clock: 'manual', ...options, databaseUrl: database.url });
      const close = () => running.close().finally(() => database.drop());
      return { running, url: running.url, ...readyCalls(running), close };
    } catch (err) {
      await database.drop();
      throw err;
    }
  }
  const running = await startEmulator({ port: 0, memory: true, clock: 'manual', ...options });
  return { running, url: running.url, ...readyCalls(running), close: () => running.close() };
}

/** The SQLite database of one environment: for tests of the SQLite adapter's own mechanisms (row watch, kept texts). */
export function sqliteDb(emu: TestEmulator, environment: Environment = 'test'): Db {
  if (!('env' in emu.running.emulator.storage)) throw new Error('sqliteDb: this emulator runs on PostgreSQL (a SQLite-only test belongs in the sqlite project only: vitest.config.ts)');
  return (emu.running.emulator.storage as SqliteStorage).env(environment).db;
}

/** A log stream for an emulator built with `logger: true` (its `logStream`), and the lines written to it. */
export function logCapture(): { lines: string[]; logStream: Writable } {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logStream };
}
