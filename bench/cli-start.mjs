// Start-up cost of the CLI and of the emulator, each case a fresh process beside `node -e 0`, in the
// same run and interleaved (one of each per round), so that a busy moment of the machine hits all alike:
//   - `merchant-kit --version` and `--help` (no work: commander only);
//   - `merchant-kit me`, `orders list` and `orders list --json` against an emulator the bench starts
//     (a command that works: the client and undici load);
//   - `emulator start --memory`, `--data <new folder>` and `--data <folder of an earlier start>`, each
//     up to its ready line (the CPU is the process's at that line; it is stopped after).
// Wall time and CPU time of each: medians, and the CPU's quartiles (its spread). The CPU is the
// process's own `process.cpuUsage()` (user + system, microseconds), read by a preload at its exit or,
// for the emulator, when it writes its ready line; the order of the cases is reversed every other round.
//
//   node bench/cli-start.mjs [--runs 30] [--json] [--only cli|emulator] [--against <checkout>] [--loaded]
//
// --against <checkout>: every case also runs from that checkout's build (its bin/merchant-kit.js,
// built there), interleaved with this one's, so that a before/after comparison shares the machine's
// moments; the CLI cases of both talk to the same emulator (this build's). --loaded: before the runs,
// each CLI case once more with a resolve hook, to print how many files and bytes of the build's
// JavaScript it loads (the emulator's up to its ready line).
//
// Needs the build (`npx tsup`). Target: median wall under 150 ms for --version and --help.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { benchArgs } from './lib/args.mjs';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'merchant-kit.js');
const TARGET_MS = 150;

const { values } = benchArgs(import.meta.url, {
  options: {
    runs: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
    only: { type: 'string' },
    against: { type: 'string' },
    loaded: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs must be a positive integer');
  process.exit(2);
}
if (values.only !== undefined && values.only !== 'cli' && values.only !== 'emulator') {
  console.error('--only must be cli or emulator');
  process.exit(2);
}
if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) {
  console.error('The build is missing: run `npx tsup` (or `npm run build`) first.');
  process.exit(1);
}
/** The builds compared: this checkout's, and the one of --against. */
const builds = [{ label: '', root: ROOT, bin: BIN }];
if (values.against !== undefined) {
  const root = resolve(values.against);
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
    console.error(`--against ${values.against}: no build there (run \`npx tsup\` in it first).`);
    process.exit(2);
  }
  builds.push({ label: ' [against]', root, bin: join(root, 'bin', 'merchant-kit.js') });
}

const ENV = { ...process.env, NO_COLOR: '1' };
delete ENV.MERCHANT_KIT_PROFILE;
const folders = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-bench-start-'));
  folders.push(dir);
  return dir;
};
const home = scratch(); // no profile of the user's is read
let emulator = null;
process.on('exit', () => {
  emulator?.kill('SIGTERM');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/**
 * The CPU of each measured process, by the process itself (`process.cpuUsage()`, microseconds: /proc's
 * ticks are 10 ms): a preload writes it to the file MK_BENCH_CPU named when the emulator writes its
 * ready line, or at exit. Every case runs with it, `node -e 0` included.
 */
const CPU_LOG = join(scratch(), 'cpu.txt');
const CPU_PRELOAD = join(scratch(), 'cpu.cjs');
writeFileSync(CPU_PRELOAD, `const { writeFileSync } = require('node:fs');
let done = false;
const record = () => { if (done) return; done = true; const { user, system } = process.cpuUsage(); writeFileSync(process.env.MK_BENCH_CPU, String(user + system)); };
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) { if (String(chunk).includes('"ready"')) record(); return write.call(this, chunk, ...rest); };
process.on('exit', record);
`);
const measured = (args) => ['--require', CPU_PRELOAD, ...args];
const cpuMs = () => Number(readFileSync(CPU_LOG, 'utf8')) / 1000;

/** One CLI process from spawn to exit: wall and CPU (ms). */
function timeExit(args, env) {
  writeFileSync(CPU_LOG, '');
  const started = process.hrtime.bigint();
  const { status, stderr } = spawnSync(process.execPath, measured(args), { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, MK_BENCH_CPU: CPU_LOG } });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (status !== 0) {
    console.error(`${args.join(' ')} exited ${status}: ${String(stderr).trim().split('\n').at(-1)} (was dist/ being rebuilt? run again)`);
    process.exit(1);
  }
  return { wall, cpu: cpuMs() };
}

/** Starts `emulator start <args> --port 0 --json`; resolves at its ready line with the process and the line. */
function startToReady(args, bin = BIN, node = []) {
  writeFileSync(CPU_LOG, '');
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...node, bin, 'emulator', 'start', '--port', '0', '--json', ...args], { cwd: ROOT, env: { ...ENV, MK_BENCH_CPU: CPU_LOG }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (!line.includes('"ready"')) return;
      const wall = Number(process.hrtime.bigint() - started) / 1e6;
      lines.close();
      // The preload wrote the CPU before the line itself.
      resolve({ child, ready: JSON.parse(line), wall, cpu: node.length ? cpuMs() : null });
    });
    child.on('exit', (code) => reject(new Error(`emulator start ${args.join(' ')} exited ${code} before its ready line: ${stderr.trim().split('\n').at(-1)}`)));
  });
}

/** One emulator start up to its ready line, then stopped (and waited for). */
async function timeReady(args, bin = BIN) {
  const { child, wall, cpu } = await startToReady(args, bin, measured([]));
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { wall, cpu };
}

const cases = [{ name: 'node -e 0', run: () => timeExit(['-e', '0'], ENV) }];
/** The CLI cases, for --loaded: their arguments and environment (`ready`: up to the emulator's ready line). */
const cliCases = [];
if (values.only !== 'emulator') {
  const plain = { ...ENV, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  // A command that does work needs an emulator: one, in memory, without rate limits, for every run.
  const started = await startToReady(['--memory', '--limits', 'off']);
  emulator = started.child;
  const target = { ...plain, MERCHANT_KIT_BASE_URL: started.ready.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: started.ready.stores[0].credential };
  for (const b of builds) {
    for (const [args, env, target_] of [
      [['--version'], plain, true],
      [['--help'], plain, true],
      [['me'], target, false],
      [['orders', 'list'], target, false],
      [['orders', 'list', '--json'], target, false],
    ]) {
      const name = `merchant-kit ${args.join(' ')}${b.label}`;
      cases.push({ name, run: () => timeExit([b.bin, ...args], env), target: target_ && b.root === ROOT });
      cliCases.push({ name, root: b.root, bin: b.bin, args, env });
    }
  }
}
if (values.only !== 'cli') {
  for (const b of builds) {
    const kept = scratch();
    cases.push(
      { name: `emulator start --memory${b.label}`, run: () => timeReady(['--memory'], b.bin) },
      { name: `emulator start --data <new>${b.label}`, run: () => timeReady(['--data', join(scratch(), 'data')], b.bin) },
      // The first run (the warm-up) creates the folder; every later start opens it.
      { name: `emulator start --data <kept>${b.label}`, run: () => timeReady(['--data', join(kept, 'data')], b.bin) },
    );
    for (const args of [['--memory'], ['--data', join(scratch(), 'data')]]) {
      cliCases.push({ name: `emulator start ${args[0]}${b.label}`, root: b.root, bin: b.bin, args: ['emulator', 'start', '--port', '0', '--json', ...args], env: ENV, ready: true });
    }
  }
}

/**
 * The build's JavaScript one CLI case loads: each file a resolve hook sees under the checkout's
 * dist/ (the CLI's chunks carry their dependencies), counted once, with its size.
 */
function loadedBy(c) {
  const dir = scratch();
  const log = join(dir, 'resolved.txt');
  writeFileSync(log, '');
  writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});`);
  if (c.ready) {
    // Up to the ready line, then stopped: an emulator does not exit by itself.
    const { status } = spawnSync(process.execPath, ['-e', `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify(['--import', join(dir, 'register.mjs'), c.bin, ...c.args])}, { stdio: ['ignore', 'pipe', 'ignore'] });
c.stdout.on('data', (d) => String(d).includes('"ready"') && c.kill('SIGTERM'));`], { cwd: ROOT, stdio: 'ignore', env: c.env });
    if (status !== 0) throw new Error(`${c.name}: no ready line with the resolve hook`);
  } else {
    spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), c.bin, ...c.args], { cwd: ROOT, stdio: 'ignore', env: c.env });
  }
  const dist = pathToFileURL(join(c.root, 'dist')).href + '/';
  const files = [...new Set(readFileSync(log, 'utf8').split('\n').filter((url) => url.startsWith(dist)))];
  return { name: c.name, files: files.length, bytes: files.reduce((sum, url) => sum + statSync(fileURLToPath(url)).size, 0) };
}
const loaded = values.loaded ? cliCases.map(loadedBy) : null;

// One warm-up of each (Node's compile cache, where it has one, is written on the first start), then
// the measured runs.
for (const c of cases) await c.run();
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) {
  // Reversed every other round: no case (no build) always runs right after the same other.
  const order = [...cases.keys()];
  for (const j of i % 2 ? order.reverse() : order) samples[j].push(await cases[j].run());
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quartile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.round(q * (xs.length - 1))];
const round = (x) => Math.round(x * 10) / 10;
const results = cases.map((c, j) => {
  const walls = samples[j].map((s) => s.wall);
  const cpus = samples[j].map((s) => s.cpu);
  return {
    name: c.name,
    runs,
    median_ms: round(median(walls)),
    min_ms: round(Math.min(...walls)),
    max_ms: round(Math.max(...walls)),
    cpu_median_ms: round(median(cpus)),
    cpu_p25_ms: round(quartile(cpus, 0.25)),
    cpu_p75_ms: round(quartile(cpus, 0.75)),
  };
});
const [base] = results;
const targeted = results.filter((r, j) => cases[j].target);
const met = targeted.every((r) => r.median_ms < TARGET_MS);

if (values.json) {
  console.log(JSON.stringify({ node: process.version, target_ms: TARGET_MS, met: targeted.length ? met : null, results, ...(loaded && { loaded }) }, null, 2));
} else {
  console.log(`Node ${process.version}, ${runs} runs each, interleaved; wall and CPU (user + system) medians, the CPU's quartiles`);
  const width = Math.max(...results.map((r) => r.name.length));
  const cpu = (r) => `${r.cpu_median_ms.toFixed(1).padStart(6)} ms (${r.cpu_p25_ms.toFixed(0)}–${r.cpu_p75_ms.toFixed(0)})`;
  for (const r of results) {
    const over = r === base ? '' : `  (+${(r.median_ms - base.median_ms).toFixed(1)} ms wall over node -e 0)`;
    console.log(
      `${r.name.padEnd(width)}  wall ${r.median_ms.toFixed(1).padStart(7)} ms (min ${r.min_ms.toFixed(1).padStart(6)}, max ${r.max_ms.toFixed(1).padStart(7)})  cpu ${cpu(r)}${over}`,
    );
  }
  if (loaded) {
    console.log('JavaScript of the build each case loads:');
    for (const l of loaded) console.log(`${l.name.padEnd(width)}  ${String(l.files).padStart(3)} files, ${(l.bytes / 1024).toFixed(0).padStart(5)} kB`);
  }
  if (targeted.length) {
    console.log(met ? `Target met: --version and --help medians under ${TARGET_MS} ms.` : `Target missed: a median is ${TARGET_MS} ms or more.`);
  }
}
process.exit(0);
