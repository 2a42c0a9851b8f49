// The emulators a benchmark loads: processes of a checkout's BUILT CLI (`emulator start --port 0
// --json`, one ready line each), or emulators already running at given URLs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { removeOnExit, spawnReady } from './processes.mjs';

/** Start flags that choose where the state lives: without one, a fresh SQLite data folder is given. */
const STORAGE_FLAGS = ['--data', '--memory', '--database-url'];

/** Splits `--start-args` like a shell does for plain words and quoted ones ("a b", 'a b'). */
export function splitArgs(text) {
  const words = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m;
  while ((m = re.exec(text ?? ''))) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

const hasFlag = (args, flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));

/** Whether the processes share one database (several SQLite processes would be separate sandboxes). */
export function sharesDatabase(startArgs, env = process.env) {
  return hasFlag(startArgs, '--database-url') || Boolean(env.MERCHANT_KIT_DATABASE_URL);
}

/** The backend's name for tables: postgres, sqlite (memory) or sqlite. */
export function backendName(startArgs, env = process.env) {
  if (sharesDatabase(startArgs, env)) return 'postgres';
  return hasFlag(startArgs, '--memory') ? 'sqlite (memory)' : 'sqlite';
}

/** A checkout's short name: its commit (`git rev-parse --short HEAD`) or its folder's name. */
export function describeRoot(root) {
  const out = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : basename(root);
}

/** The checkout's CLI, checked to be built. */
export function builtCli(root) {
  const bin = join(resolve(root), 'bin', 'merchant-kit.js');
  if (!existsSync(bin)) throw new UsageError(`${root} has no bin/merchant-kit.js: is it a merchant-kit checkout?`);
  if (!existsSync(join(resolve(root), 'dist', 'src', 'cli', 'main.js'))) {
    throw new UsageError(`${root} is not built: run \`npm ci && npm run build\` (or \`npx tsup\`) there first.`);
  }
  return bin;
}

export class UsageError extends Error {}

/** The whole-number option `--name` of parseArgs' `values`, at least `min`; a UsageError otherwise. */
export function wholeOption(values, name, min) {
  const v = values[name];
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`--${name} must be a whole number of at least ${min} (got '${v}')`);
  return Number(v);
}

/**
 * Starts `processes` emulators of the checkout at `root`, all at once (on one database they migrate
 * under its lock), with `--limits off` and `startArgs` after it (so that they may override it).
 * Without a storage flag each gets a fresh SQLite data folder, removed when the benchmark ends.
 * `env(i)` adds variables to process i's environment. Resolves with `{ urls, pids, children, label }`.
 */
export async function startEmulators({ root, processes, startArgs, env = () => ({}) }) {
  const bin = builtCli(root);
  // The bench's receiver listens on loopback, which a shared sandbox (a database, an admin token)
  // refuses unless told; a checkout older than the flag has no such refusal.
  const loopback = knowsFlag(root, '--allow-loopback-targets') ? ['--allow-loopback-targets'] : [];
  const starts = Array.from({ length: processes }, (_, i) => {
    const storage = STORAGE_FLAGS.some((f) => hasFlag(startArgs, f)) || sharesDatabase(startArgs) ? [] : ['--data', freshFolder()];
    const args = [bin, 'emulator', 'start', '--port', '0', '--json', '--limits', 'off', ...loopback, ...storage, ...startArgs];
    return spawnReady(args, {
      cwd: resolve(root),
      env: { ...process.env, NO_COLOR: '1', ...env(i) },
      isReady: (line) => line?.event === 'ready',
      name: `emulator ${i + 1} (${describeRoot(root)})`,
    });
  });
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const started = settled.map((s) => s.value);
  return {
    urls: started.map((s) => s.ready.url),
    // The ready line names the process that serves (the CLI's own when it serves in-process).
    pids: started.map((s) => s.ready.pid ?? s.child.pid),
    children: started.map((s) => s.child),
  };
}

/** Whether the checkout's `emulator start` takes `flag` (its help lists it). */
function knowsFlag(root, flag) {
  const help = spawnSync(process.execPath, [builtCli(root), 'emulator', 'start', '--help'], { cwd: resolve(root), encoding: 'utf8' });
  return help.stdout.includes(flag);
}

function freshFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-mixed-'));
  removeOnExit(dir);
  return join(dir, 'data');
}
