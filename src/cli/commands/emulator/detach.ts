import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ReadyInfo } from '../../../../emulator/server.js';
import { ExitError } from '../../errors.js';
import { note } from '../../output.js';
import { banner, type BannerFacts } from './banner.js';
import type { StartOptions } from './index.js';
import { checkOperatorFlags, startStorage } from './storage.js';
import { assertPortFree, DataDirBefore } from './start-failure.js';

/** Set in the environment of the emulator that `start --detach` spawns: it reports its start over IPC. */
export { DETACHED_CHILD } from '../../parent-watch.js';
import { DETACHED_CHILD } from '../../parent-watch.js';

/** Names the detached emulator's log when it is a temporary file of its own (`--memory`, no `--log-file`): removed on a clean stop. */
export const DETACHED_TEMP_LOG = 'MERCHANT_KIT_DETACHED_TEMP_LOG';

/** What the detached emulator sends once it listens. */
export interface DetachedReady {
  ready: ReadyInfo;
  facts: BannerFacts;
  /** More text for the banner (`--from`'s note). */
  extra: string;
}

/** How long the emulator may take to listen (migrations, a restore, a menu) before the start is given up. */
const START_TIMEOUT_MS = 60_000;

/** The log file: `--log-file`, else `emulator.log` in the data folder, else (with `--memory`) one in the temp folder. */
function logFileOf(options: StartOptions, dataDir: string | null): string {
  if (options.logFile) return resolve(options.logFile);
  return dataDir ? join(dataDir, 'emulator.log') : join(tmpdir(), `merchant-kit-emulator-${process.pid}-${Date.now()}.log`);
}

/** The same start, in the foreground of a child: paths made absolute, the admin token kept out of argv. */
function childArgs(options: StartOptions, dataDir: string | null, databaseUrl: string | null): string[] {
  const args = [...(options.verbose ? ['--verbose'] : []), 'emulator', 'start', '--json'];
  args.push('--port', String(options.port), '--host', options.host, '--clock', options.clock, '--limits', options.limits);
  // A database URL goes by the environment (it may hold a password; argv is visible to everyone).
  if (!databaseUrl) args.push(...(dataDir ? ['--data', dataDir] : ['--memory']));
  if (options.seed !== undefined) args.push('--seed', String(options.seed));
  for (const host of options.allowedHost) args.push('--allowed-host', host);
  if (options.trustProxy.length > 0) args.push('--trust-proxy', options.trustProxy.join(','));
  if (options.allowLoopbackTargets) args.push('--allow-loopback-targets');
  if (options.accessRequests === 'open') args.push('--access-requests', 'open');
  if (options.publicUrl) args.push('--public-url', options.publicUrl);
  if (options.from) args.push('--from', resolve(options.from));
  if (options.catalog) args.push('--catalog', resolve(options.catalog));
  return args;
}

/** The lines the child wrote to its log since `offset` (why it did not start). */
function logSince(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8').trim();
  } catch {
    return '';
  }
}

/** A path as one shell word, for a command the user may paste. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Ctrl+C while the emulator starts stops it too: an interrupted start leaves nothing running. Made
 * before the child is spawned, in the same synchronous turn, so that it can never miss the child.
 */
function interruptGuard() {
  const guard = {
    aborted: false,
    child: undefined as ChildProcess | undefined,
    release: () => process.off('SIGINT', interrupted),
  };
  function interrupted() {
    guard.aborted = true;
    guard.child?.kill('SIGTERM');
  }
  process.once('SIGINT', interrupted);
  return guard;
}

/** `emulator start` as a detached child (its own session), stdin and stdout closed, stderr appended to the log file. */
function spawnEmulator(options: StartOptions, dataDir: string | null, databaseUrl: string | null, logFile: string): { child: ChildProcess; offset: number } {
  const temporary = !dataDir && !options.logFile;
  mkdirSync(dirname(logFile), { recursive: true });
  // 0600: with --verbose the log holds every request line (redacted, yet the user's own traffic).
  const fd = openSync(logFile, 'a', 0o600);
  const offset = fstatSync(fd).size;
  const token = options.adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN;
  try {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...childArgs(options, dataDir, databaseUrl)], {
      detached: true,
      stdio: ['ignore', 'ignore', fd, 'ipc'],
      env: {
        ...process.env,
        [DETACHED_CHILD]: '1',
        ...(temporary ? { [DETACHED_TEMP_LOG]: logFile } : {}),
        ...(token ? { MERCHANT_KIT_ADMIN_TOKEN: token } : {}),
        ...(databaseUrl ? { MERCHANT_KIT_DATABASE_URL: databaseUrl } : {}),
      },
      windowsHide: true,
    });
    return { child, offset };
  } finally {
    closeSync(fd);
  }
}

/** The child exited before it listened: what its log says, and its exit code. */
class ChildFailed extends Error {
  constructor(
    readonly log: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
  ) {
    super('the emulator did not start');
  }
}

/** The child's report once it listens; its log's new lines when it exits first (ChildFailed). */
function readyReport(child: ChildProcess, logFile: string, offset: number, guard: { aborted: boolean }): Promise<DetachedReady> {
  return new Promise<DetachedReady>((resolveReport, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new ExitError(`error: the emulator did not start within ${START_TIMEOUT_MS / 1000} s; its log: ${logFile}`));
    }, START_TIMEOUT_MS);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolveReport(message as DetachedReady);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (guard.aborted) return reject(new ExitError('Interrupted: the emulator was stopped before it listened.'));
      reject(new ChildFailed(logSince(logFile, offset), code, signal));
    });
  });
}

/**
 * The child's failure as this command reports it. The child runs with --json, so its last log line is
 * the one JSON error object: it becomes this command's own error (a line and its hint for people, the
 * same object under --json), after the notes the child printed before it. `logKept`: the log file
 * outlives the failed start (named, for whoever reads more of it).
 */
function childFailure(failed: ChildFailed, logFile: string, logKept: boolean): ExitError {
  const lines = failed.log.split('\n').filter((line) => line.trim() !== '');
  const last = lines.at(-1);
  let error: { message?: unknown; hint?: unknown; code?: unknown } | undefined;
  try {
    error = last ? (JSON.parse(last) as { error?: typeof error }).error : undefined;
  } catch {
    error = undefined;
  }
  const where = logKept ? `the emulator did not start; its log: ${logFile}` : 'the emulator did not start';
  const exitCode = failed.exitCode === 2 ? 2 : 1;
  if (error && typeof error.message === 'string') {
    for (const line of lines.slice(0, -1)) note(line);
    const hint = typeof error.hint === 'string' ? error.hint : undefined;
    return new ExitError(`error: ${error.message} (${where})`, exitCode, { hint, ...(typeof error.code === 'string' ? { code: error.code } : {}) });
  }
  const why = lines.join('\n') || (failed.signal ? `it was stopped by ${failed.signal}` : `it exited with code ${failed.exitCode}`);
  return new ExitError(`${why}\n(${where})`, exitCode);
}

/**
 * `emulator start --detach`: runs `emulator start` as a detached child, waits for its report over
 * IPC, prints the ready line or the banner, and returns while the emulator keeps running. Stopped
 * with `emulator stop` or the pid.
 */
export async function startDetached(options: StartOptions): Promise<void> {
  const { dataDir, databaseUrl } = startStorage(options);
  checkOperatorFlags(options);
  // Before anything is made (start-failure.ts): the usual failure changes nothing.
  await assertPortFree(options.host, options.port);
  const before = dataDir ? DataDirBefore.of(dataDir) : null;
  const logFile = logFileOf(options, dataDir);
  if (dataDir) {
    const { secureDataDir } = await import('../../../../emulator/data-folder.js');
    secureDataDir(dataDir);
  }
  const guard = interruptGuard();
  const { child, offset } = spawnEmulator(options, dataDir, databaseUrl, logFile);
  guard.child = child;
  let report: DetachedReady;
  try {
    report = await readyReport(child, logFile, offset, guard).finally(guard.release);
  } catch (error) {
    if (!(error instanceof ChildFailed)) throw error;
    // A failed start leaves nothing behind: a data folder it made (its log with it), a temporary log.
    // A log the user named, or one in a folder that was theirs before, stays and is named.
    const removed = before?.undo() ?? false;
    const temporary = !dataDir && !options.logFile;
    if (temporary) rmSync(logFile, { force: true });
    throw childFailure(error, logFile, Boolean(options.logFile) || (!removed && !temporary));
  }
  child.removeAllListeners('exit');
  if (child.connected) child.disconnect();
  child.unref();
  const stop = dataDir ? `merchant-kit emulator stop${options.data ? ` --data ${shellWord(dataDir)}` : ''}` : `kill ${report.ready.pid}`;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report.ready)}\n`);
    // The banner names the log file; the ready line keeps DESIGN's shape, so it goes to stderr.
    note(`Emulator log: ${logFile}`);
  } else process.stdout.write(`${banner({ ...report.facts, detached: { logFile, stop } })}\n${report.extra}`);
}
