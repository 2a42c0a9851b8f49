import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from './cli.js';

let main: string | undefined;

/**
 * Builds the CLI into a private folder for this test file and runs it from there. Eight people
 * share dist/, and its rebuilds (clean, new chunk names) used to pull lazily imported chunks from
 * under running commands; a private build is a snapshot nobody else touches. The folder sits under
 * node_modules/.cache so that the bundle still resolves its dependencies from node_modules.
 * Returns a function that removes it.
 */
export async function buildPrivateCli(): Promise<() => void> {
  const parent = join(ROOT, 'node_modules', '.cache');
  mkdirSync(parent, { recursive: true });
  const out = mkdtempSync(join(parent, 'merchant-kit-cli-test-'));
  const tsup = join(ROOT, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [tsup, '--out-dir', out, '--silent'], { cwd: ROOT }, (error, _o, stderr) =>
      error ? reject(new Error(`private build failed: ${stderr}`)) : resolve(),
    ),
  );
  main = join(out, 'src', 'cli', 'main.js');
  return () => rmSync(out, { recursive: true, force: true });
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
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`merchant-kit ${args.join(' ')} timed out; stderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
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
