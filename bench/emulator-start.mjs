// What an in-process emulator start costs once its modules are loaded: `startEmulator()` from the
// package's build, started and closed again and again in one process (the tests' in-process
// emulators, and the work every `emulator start` does after loading its code). Three cases,
// interleaved (one of each per round) so that a busy moment of the machine hits all alike:
//   - `{ memory: true }`;
//   - `{ data: <new folder> }` (the databases are created);
//   - `{ data: <folder of an earlier start> }` (opened, nothing to migrate).
// For each: the median wall time and the median CPU time (user + system of this process, which
// includes Node's compiler and GC threads) from the call to `startEmulator()` until it resolves, and
// the same for its `close()`. The first round is a warm-up and not counted in the medians; it is
// printed apart (the first start compiles the code a start runs: what an `emulator start` process pays).
//
//   node bench/emulator-start.mjs [--runs 25] [--json] [--dist <folder>]
//
// Needs the build (`npx tsup`). `--dist` measures another build of the package (e.g. main's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './lib/args.mjs';

const ROOT = join(import.meta.dirname, '..');
const { values } = benchArgs(import.meta.url, {
  options: {
    runs: { type: 'string', default: '25' },
    json: { type: 'boolean', default: false },
    dist: { type: 'string', default: join(ROOT, 'dist') },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs must be a positive integer');
  process.exit(2);
}

const loadStarted = process.hrtime.bigint();
const loadCpu = process.cpuUsage();
const { startEmulator } = await import(pathToFileURL(join(resolve(values.dist), 'emulator', 'index.js')).href);
const load = { wallMs: Number(process.hrtime.bigint() - loadStarted) / 1e6, cpuMs: cpuMs(process.cpuUsage(loadCpu)) };

const folders = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-bench-emulator-start-'));
  folders.push(dir);
  return dir;
};
process.on('exit', () => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});
const kept = scratch();

function cpuMs(usage) {
  return (usage.user + usage.system) / 1000;
}

const CASES = [
  { name: 'startEmulator({ memory })', options: () => ({ memory: true }) },
  { name: 'startEmulator({ data: <new> })', options: () => ({ data: join(scratch(), 'data') }) },
  { name: 'startEmulator({ data: <kept> })', options: () => ({ data: kept }) },
];

async function once(options) {
  const quiet = { port: 0, host: '127.0.0.1', logger: false, ...options };
  let started = process.hrtime.bigint();
  let cpu = process.cpuUsage();
  const emulator = await startEmulator(quiet);
  const start = { wallMs: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: cpuMs(process.cpuUsage(cpu)) };
  started = process.hrtime.bigint();
  cpu = process.cpuUsage();
  await emulator.close();
  const close = { wallMs: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: cpuMs(process.cpuUsage(cpu)) };
  return { start, close };
}

const samples = new Map(CASES.map((c) => [c.name, []]));
const first = new Map();
for (let round = 0; round <= runs; round++) {
  for (const c of CASES) {
    const sample = await once(c.options());
    if (round > 0) samples.get(c.name).push(sample);
    else first.set(c.name, sample);
  }
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const results = CASES.map((c) => {
  const list = samples.get(c.name);
  return {
    case: c.name,
    firstStartWallMs: first.get(c.name).start.wallMs,
    firstStartCpuMs: first.get(c.name).start.cpuMs,
    startWallMs: median(list.map((s) => s.start.wallMs)),
    startCpuMs: median(list.map((s) => s.start.cpuMs)),
    closeWallMs: median(list.map((s) => s.close.wallMs)),
    closeCpuMs: median(list.map((s) => s.close.cpuMs)),
  };
});

if (values.json) {
  console.log(JSON.stringify({ node: process.version, runs, load, results }, null, 2));
} else {
  const ms = (n) => `${n.toFixed(1).padStart(7)} ms`;
  console.log(`Node ${process.version}, ${runs} runs each after one warm-up, interleaved; medians`);
  console.log(`import of the emulator entry          wall ${ms(load.wallMs)}  cpu ${ms(load.cpuMs)}`);
  for (const r of results) {
    console.log(`${r.case.padEnd(38)}first start (one process's only one): wall ${ms(r.firstStartWallMs)}  cpu ${ms(r.firstStartCpuMs)}`);
  }
  for (const r of results) {
    console.log(`${r.case.padEnd(38)}wall ${ms(r.startWallMs)}  cpu ${ms(r.startCpuMs)}   close: wall ${ms(r.closeWallMs)}  cpu ${ms(r.closeCpuMs)}`);
  }
}
