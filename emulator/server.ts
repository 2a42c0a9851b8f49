import { buildEmulator } from './app.js';
import { baseUrl, type Emulator, type EmulatorOptions } from './emulator.js';

export interface ReadyInfo {
  event: 'ready';
  url: string;
  live_base_url: string;
  sandbox_base_url: string;
  admin_url: string;
  stores: { environment: 'test' | 'live'; store_id: string; integration_id: string; credential: string }[];
  /** The process that serves it (what `emulator stop` signals). */
  pid: number;
}

export interface RunningEmulator extends ReadyInfo {
  /** The emulator itself, for tests that reach past HTTP (clock, databases). */
  emulator: Emulator;
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

/**
 * Starts the emulator and resolves once it listens, with the ready line's data and `close()`.
 *
 * @example
 * const emu = await startEmulator({ port: 0, memory: true, clock: 'manual' });
 * const test = emu.stores.find((s) => s.environment === 'test')!;
 * await fetch(`${emu.sandbox_base_url}/me`, { headers: { authorization: `Bearer ${test.credential}` } });
 * await emu.close();
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host) && !options.adminToken) {
    throw new Error('a non-loopback --host requires --admin-token');
  }
  const { app, emulator } = await buildEmulator(options);
  try {
    await app.listen({ port: options.port ?? 4010, host });
  } catch (error) {
    // A taken port must not leave the databases open (startEmulator is also called from test suites).
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port ?? 4010;
  const url = baseUrl(host, port);
  emulator.publicUrl = url;
  emulator.outbound.listening(host, port);
  let closing: Promise<void> | undefined;
  return {
    event: 'ready',
    url,
    live_base_url: `${url}/v1`,
    sandbox_base_url: `${url}/sandbox/v1`,
    admin_url: `${url}/_emulator`,
    stores: emulator.seeds.map((s) => ({
      environment: s.environment,
      store_id: s.storeId,
      integration_id: s.integrationId,
      credential: s.credential,
    })),
    pid: process.pid,
    emulator,
    close: () => (closing ??= app.close()),
  };
}

/** The ready line: exactly the DESIGN's JSON object, without the live handles. */
export function readyLine(running: RunningEmulator): ReadyInfo {
  const { event, url, live_base_url, sandbox_base_url, admin_url, stores, pid } = running;
  return { event, url, live_base_url, sandbox_base_url, admin_url, stores, pid };
}
