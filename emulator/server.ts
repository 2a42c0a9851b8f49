import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEmulator } from './app.js';
import { baseUrl, resolveOptions, type Emulator, type EmulatorOptions } from './emulator.js';
import type { Bundle } from './bundle/format.js';
import type { RestoredIntegration } from './bundle/restore.js';
import { otherEmulatorServing, PID_FILE, readPidFile, recoverInterruptedRestore, restoreIntoDataDir } from './data-folder.js';

export interface ReadyInfo {
  event: 'ready';
  url: string;
  live_base_url: string;
  sandbox_base_url: string;
  admin_url: string;
  /** The demo stores; after a restore, every restored integration (with its webhook's new secret). */
  stores: { environment: 'test' | 'live'; store_id: string; integration_id: string; credential: string; webhook_signing_secret?: string }[];
  /** The process that serves it (what `emulator stop` signals). */
  pid: number;
  /** Whether integrators may ask for access here (`--access-requests open`). */
  access_requests: 'open' | 'closed';
}

export interface RunningEmulator extends ReadyInfo {
  /** The emulator itself, for tests that reach past HTTP (clock, databases). */
  emulator: Emulator;
  /** What the start did beyond the usual (an interrupted restore finished or discarded), one line each. */
  notices: string[];
  close(): Promise<void>;
}

/** `startEmulator`'s options, plus the bundle to start from (`emulator start --from`). */
export interface StartEmulatorOptions extends EmulatorOptions {
  /**
   * A state bundle to start from (`emulator export`): its file, or the bundle already read and
   * checked (the CLI reads it first, to refuse a bad file before anything starts) with its file name.
   */
  from?: string | { bundle: Bundle; file: string };
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
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host) && !options.adminToken) {
    throw new Error('a non-loopback --host requires --admin-token');
  }
  // Nobody could approve a request on a sandbox without an admin token.
  if (options.accessRequests && !options.adminToken) throw new Error('--access-requests open requires --admin-token');
  const { from: given, ...emulatorOptions } = options;
  const from = typeof given === 'string' ? { bundle: (await import('./bundle/file.js')).readBundleFile(given), file: given } : given;
  const folder = resolveOptions(emulatorOptions).data;
  const notices: string[] = [];
  let restored: RestoredIntegration[] | undefined;
  if (folder) {
    const owner = otherEmulatorServing(folder);
    if (owner !== null) {
      throw new Error(`the data folder ${folder} is served by another emulator (pid ${owner}): stop it first (merchant-kit emulator stop --data ${folder}) or use another --data folder`);
    }
    const notice = recoverInterruptedRestore(folder);
    if (notice) notices.push(notice);
    if (from) restored = await restoreIntoDataDir(folder, from.bundle, from.file, emulatorOptions);
  }
  const { app, emulator } = await buildEmulator(emulatorOptions);
  if (from && !folder) {
    // In memory: restored before it listens, so no request sees the state half replaced.
    try {
      const { restoreBundle } = await import('./bundle/restore.js');
      restored = await restoreBundle(emulator, from.bundle);
    } catch (error) {
      await app.close();
      throw error;
    }
  }
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
  const pidFile = folder ? join(folder, PID_FILE) : null;
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  let closing: Promise<void> | undefined;
  const close = async () => {
    await app.close();
    // Only our own: another emulator may have started on the same folder since.
    if (pidFile && folder && readPidFile(folder) === process.pid) rmSync(pidFile, { force: true });
  };
  return {
    event: 'ready',
    url,
    live_base_url: `${url}/v1`,
    sandbox_base_url: `${url}/sandbox/v1`,
    admin_url: `${url}/_emulator`,
    stores:
      restored ??
      emulator.seeds.map((s) => ({
        environment: s.environment,
        store_id: s.storeId,
        integration_id: s.integrationId,
        credential: s.credential,
      })),
    pid: process.pid,
    access_requests: emulator.options.accessRequests ? 'open' : 'closed',
    emulator,
    notices,
    close: () => (closing ??= close()),
  };
}

/** The ready line: exactly the DESIGN's JSON object, without the live handles. */
export function readyLine(running: ReadyInfo): ReadyInfo {
  const { event, url, live_base_url, sandbox_base_url, admin_url, stores, pid, access_requests } = running;
  return { event, url, live_base_url, sandbox_base_url, admin_url, stores, pid, access_requests };
}
