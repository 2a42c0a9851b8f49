import { Writable } from 'node:stream';
import { startEmulator, type ReadyInfo, type RunningEmulator } from '../../emulator/server.js';
import type { EmulatorOptions } from '../../emulator/emulator.js';
import type { SqliteStorage } from '../../emulator/adapters/sqlite/index.js';
import type { Db } from '../../emulator/adapters/sqlite/open.js';
import type { Environment } from '../../src/contract/store.js';
import { request, type CallOptions, type Response } from './http.js';

export { request, type CallOptions, type Response };

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
