// Public entry `merchant-kit/emulator`: start an emulator in-process, or build its app for `inject`.
//
// The toolkit's own code (the CLI, the tests) uses the emulator's internals through server.ts and
// app.ts; this entry declares narrower types for the same functions, so that the package's
// declarations name no database driver, fastify or emulator internals (a user's `tsc` would load and
// check them all). Each assignment below is checked: the real function satisfies its public type.
import { buildEmulator as build } from './app.js';
import { startEmulator as start, type ReadyInfo } from './server.js';
import type { EmulatorOptions } from './emulator.js';

export { readyLine } from './server.js';
export type { ReadyInfo, EmulatorOptions };

/** What `startEmulator()` resolves to: every key of the ready line, and `close()`. */
export interface RunningEmulator extends ReadyInfo {
  /** Stops listening and closes the databases; the same promise on every call. */
  close(): Promise<void>;
}

/**
 * Starts the emulator and resolves once it listens, with the ready line's data and `close()`.
 *
 * @example
 * const emu = await startEmulator({ port: 0, memory: true, clock: 'manual' });
 * const test = emu.stores.find((s) => s.environment === 'test')!;
 * await fetch(`${emu.sandbox_base_url}/me`, { headers: { authorization: `Bearer ${test.credential}` } });
 * await emu.close();
 */
export const startEmulator: (options?: EmulatorOptions) => Promise<RunningEmulator> = start;

/** A request for `app.inject()` (light-my-request's options, the common part). */
export interface InjectRequest {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  /** A path (`/sandbox/v1/me`), with its query string if any. */
  url: string;
  headers?: Record<string, string | string[]>;
  query?: Record<string, string | string[]>;
  /** A string or Buffer is sent as is; an object as JSON. */
  payload?: string | Buffer | object;
}

/** The answer of `app.inject()`. */
export interface InjectResponse {
  statusCode: number;
  statusMessage: string;
  headers: Record<string, string | string[] | number | undefined>;
  /** The body as text. */
  body: string;
  payload: string;
  rawPayload: Buffer;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

/** The emulator's HTTP app, built but not listening. */
export interface EmulatorApp {
  /** One request through the app without a socket (light-my-request). */
  inject(request: InjectRequest | string): Promise<InjectResponse>;
  /** Listens like `startEmulator()` does (port 0: any free port); resolves with the address. */
  listen(options: { port?: number; host?: string }): Promise<string>;
  /** Resolves once every plugin is loaded (`inject` waits for it too). */
  ready(): PromiseLike<unknown>;
  /** Stops the app and closes the databases. */
  close(): Promise<unknown>;
}

/** The emulator's app without listening, for `app.inject()` in a test suite. */
export const buildEmulator: (options?: EmulatorOptions) => Promise<{ app: EmulatorApp }> = build;
