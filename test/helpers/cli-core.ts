import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from './cli.js';
import { runBuild } from './run-build.js';
import { loadTimer } from './wait.js';

let main: string | undefined;

/**
 * Points this test file's commands at the run's private copy of the built CLI (helpers/run-build.ts:
 * made once per run, so a rebuild of dist/ cannot pull lazily imported chunks from under running
 * commands, and no file pays for a build of its own). Returns a function to call when the file is
 * done (the copy itself goes with the run).
 */
export async function buildPrivateCli(): Promise<() => void> {
  main = join(await runBuild(), 'dist', 'src', 'cli', 'main.js');
  return () => undefined;
}

/** The CLI's entry: the private build when there is one, else bin/merchant-kit.js (dist/). */
export function cliEntry(): string {
  return main ?? BIN;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed (stdin is closed at once without it). */
  input?: string;
  /** Bounds a hang (60 s on a quiet machine by default, grown with the load): the command is killed and the call fails. */
  timeoutMs?: number;
}

/**
 * The environment of the parent without any MERCHANT_KIT_* variable (a developer's own settings
 * must not leak into a test), colours off, and the client's backoff shortened (test-only variable).
 */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MERCHANT_KIT_') && k !== 'FORCE_COLOR') env[k] = v;
  return { ...env, NO_COLOR: '1', MERCHANT_KIT_RETRY_BASE_MS: '5' };
}

/** Runs `merchant-kit …args` to the end and returns its exit code and output. */
export function cli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry(), ...args], { cwd: ROOT, env: { ...baseEnv(), ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    // A limit that only bounds a hang, grown with the machine's load (helpers/wait.ts).
    const timer = loadTimer(options.timeoutMs ?? 60_000, (elapsed) => {
      child.kill('SIGKILL');
      reject(new Error(`merchant-kit ${args.join(' ')} still ran after ${(elapsed / 1000).toFixed(1)} s; stderr: ${stderr}`));
    });
    child.on('error', reject);
    child.on('close', (code) => {
      timer.cancel();
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A fresh config folder (XDG_CONFIG_HOME) for one test; `cleanup()` removes it. */
export function tempConfig(): { dir: string; env: { XDG_CONFIG_HOME: string }; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-cli-'));
  return { dir, env: { XDG_CONFIG_HOME: dir }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Secret values that must not appear in output: credential secrets and webhook signing secrets. */
export const SECRET_PATTERN = /svs_(live|test)_[A-Za-z0-9]{8,}|whsec_[A-Za-z0-9_-]{8,}/;
