import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadDeadline, loadFactor, waitFor } from './wait.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'merchant-kit.js');
const BUILT = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const LOCK = join(ROOT, 'node_modules', '.cache', 'merchant-kit-build.lock');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  if (!existsSync(BUILT)) return false;
  const built = statSync(BUILT).mtimeMs;
  return ['src', 'emulator', 'checks'].every((dir) => !existsSync(join(ROOT, dir)) || newestSource(join(ROOT, dir)) <= built);
}

/**
 * Builds `dist/` with tsup when it is missing or older than the sources, so the subprocess runs the
 * code under test. One build at a time across test files (a lock folder).
 */
export async function ensureBuilt(): Promise<void> {
  // A build takes seconds; the limit only bounds a builder that died without removing its lock.
  for (const deadline = loadDeadline(240_000); !isFresh(); ) {
    mkdirSync(join(LOCK, '..'), { recursive: true });
    let locked = false;
    try {
      mkdirSync(LOCK);
      locked = true;
    } catch {
      // Another file is building; a lock older than two minutes (more on a busy machine) is left over from a killed run.
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000 * loadFactor()) rmSync(LOCK, { recursive: true, force: true });
    }
    if (locked) {
      try {
        execFileSync(process.execPath, [join(ROOT, 'node_modules', 'tsup', 'dist', 'cli-default.js')], { cwd: ROOT, stdio: 'pipe' });
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    if (deadline.passed()) throw new Error(`waited ${Math.round(deadline.elapsedMs() / 1000)} s for another build of dist/ (its lock: ${LOCK})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every stdout line so far. */
  lines: string[];
  stderr: () => string;
  /** Resolves with the first stdout line. */
  firstLine: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `node bin/merchant-kit.js …args` and collects its output. Colours off, and the client's backoff
 * shortened as `cli()` does (the test-only MERCHANT_KIT_RETRY_BASE_MS: 5 ms, then 10, 20… capped at
 * 40): a test that is about the real waits passes `MERCHANT_KIT_RETRY_BASE_MS: ''` in `env`.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', MERCHANT_KIT_RETRY_BASE_MS: '5', ...env } });
  const lines: string[] = [];
  let err = '';
  child.stderr.on('data', (d) => (err += String(d)));
  const rl = createInterface({ input: child.stdout });
  const firstLine = new Promise<string>((resolveLine, reject) => {
    rl.on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) resolveLine(line);
    });
    child.on('exit', () => reject(new Error(`exited before printing a line; stderr: ${err}`)));
  });
  firstLine.catch(() => undefined);
  // 'close', not 'exit': by then stdout and stderr are read to their end, so `lines` and `stderr()`
  // hold everything the process printed.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (code, signal) => r({ code, signal })),
  );
  return { child, lines, stderr: () => err, firstLine, exited };
}

/**
 * The first stdout line so far that `test` accepts (a substring, or a predicate), once it has been
 * printed; fails, naming every line and stderr, only once the load-following limit has passed.
 */
export function waitForLine(cli: CliProcess, test: string | ((line: string) => boolean)): Promise<string> {
  const matches = typeof test === 'string' ? (line: string) => line.includes(test) : test;
  return waitFor(() => cli.lines.find(matches), () => `a line ${typeof test === 'string' ? `with ${JSON.stringify(test)}` : 'as wanted'}; got:\n${cli.lines.join('\n')}\nstderr: ${cli.stderr()}`);
}

/** Waits until the run has printed something on stderr that `test` accepts, and returns all of stderr. */
export function waitForStderr(cli: CliProcess, test: string | ((stderr: string) => boolean)): Promise<string> {
  const matches = typeof test === 'string' ? (err: string) => err.includes(test) : test;
  return waitFor(() => (matches(cli.stderr()) ? cli.stderr() : undefined), () => `stderr ${typeof test === 'string' ? `with ${JSON.stringify(test)}` : 'as wanted'}; got:\n${cli.stderr()}`);
}
