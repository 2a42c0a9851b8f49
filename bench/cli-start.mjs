// CLI cold start: `merchant-kit --version` and `--help` beside `node -e 0` in the same run, each a
// fresh process, interleaved so that a busy moment of the machine hits all three alike.
//
//   node bench/cli-start.mjs [--runs 30] [--json]
//
// Needs the build (`npx tsup`). Target: median under 150 ms for --version and --help.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'merchant-kit.js');
const TARGET_MS = 150;

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, json: { type: 'boolean', default: false } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs must be a positive integer');
  process.exit(2);
}
if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) {
  console.error('The build is missing: run `npx tsup` (or `npm run build`) first.');
  process.exit(1);
}

const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'merchant-kit --version', args: [BIN, '--version'] },
  { name: 'merchant-kit --help', args: [BIN, '--help'] },
];

/** Wall time of one process from spawn to exit, in milliseconds. */
function time(args) {
  const started = process.hrtime.bigint();
  const { status, stderr } = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (status !== 0) {
    console.error(`${args.join(' ')} exited ${status}: ${String(stderr).trim().split('\n')[0]} (was dist/ being rebuilt? run again)`);
    process.exit(1);
  }
  return ms;
}

// One warm-up of each (the compile cache is written on the first start), then the measured runs.
for (const c of cases) time(c.args);
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) cases.forEach((c, j) => samples[j].push(time(c.args)));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const results = cases.map((c, j) => ({
  name: c.name,
  runs,
  median_ms: Math.round(median(samples[j]) * 10) / 10,
  min_ms: Math.round(Math.min(...samples[j]) * 10) / 10,
  max_ms: Math.round(Math.max(...samples[j]) * 10) / 10,
}));
const base = results[0].median_ms;
const met = results.slice(1).every((r) => r.median_ms < TARGET_MS);

if (values.json) {
  console.log(JSON.stringify({ node: process.version, target_ms: TARGET_MS, met, results }, null, 2));
} else {
  console.log(`Node ${process.version}, ${runs} runs each, interleaved`);
  const width = Math.max(...results.map((r) => r.name.length));
  for (const r of results) {
    const over = r === results[0] ? '' : `  (+${(r.median_ms - base).toFixed(1)} ms over node -e 0)`;
    console.log(`${r.name.padEnd(width)}  median ${r.median_ms.toFixed(1).padStart(6)} ms  min ${r.min_ms.toFixed(1).padStart(6)}  max ${r.max_ms.toFixed(1).padStart(6)}${over}`);
  }
  console.log(met ? `Target met: --version and --help medians under ${TARGET_MS} ms.` : `Target missed: a median is ${TARGET_MS} ms or more.`);
}
process.exit(0);
