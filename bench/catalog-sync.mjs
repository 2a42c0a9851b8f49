// Catalog sync benchmark (needs the build: `npx tsup`): `merchant-kit catalog sync --full-snapshot`
// of the generated 20,000-product menu into an empty store, end to end (the CLI as a subprocess,
// from start to exit), against an emulator that is itself started by the CLI in a child process.
//
//   node bench/catalog-sync.mjs [--products 20000] [--limits off,on] [--json]
//
// 1. `--limits off`: target under 15 s.
// 2. limits on (10 batches a minute, one at a time): how long it takes, how often the CLI waited on
//    429/409 and that no batch failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { benchArgs } from './lib/args.mjs';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'merchant-kit.js');
const TARGET_MS = 15_000;

const { values: flags } = benchArgs(import.meta.url, {
  options: { products: { type: 'string', default: '20000' }, limits: { type: 'string', default: 'off,on' }, json: { type: 'boolean', default: false } },
});
const products = Number(flags.products);

function menuFile() {
  const file = join(ROOT, 'fixtures', 'catalog', `large-${products}.json`);
  if (!existsSync(file)) {
    const gen = spawn(process.execPath, [join(ROOT, 'fixtures', 'catalog', 'generate-large.mjs'), '--products', String(products), '--out', file], { stdio: 'inherit' });
    return new Promise((resolve, reject) => gen.on('exit', (code) => (code === 0 ? resolve(file) : reject(new Error('generate-large.mjs failed')))));
  }
  return Promise.resolve(file);
}

/** `merchant-kit emulator start --memory --port 0 --limits X --json` and its ready line. */
function startEmulator(limits) {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--memory', '--port', '0', '--limits', limits, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, ready: JSON.parse(line) }));
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}) before its ready line: ${stderr.trim()}`)));
  });
}

async function emptyStore(adminUrl) {
  const res = await fetch(`${adminUrl}/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ environment: 'test' }) });
  if (res.status !== 201) throw new Error(`POST /_emulator/stores: ${res.status}`);
  return (await res.json()).data;
}

/** Runs the CLI to its end; returns exit code, stdout, stderr and the wall time. */
function runSync(file, env) {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'catalog', 'sync', file, '--full-snapshot', '--json'], { env: { ...process.env, NO_COLOR: '1', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started })));
}

async function run(limits, file, config) {
  const { child, ready } = await startEmulator(limits);
  try {
    const store = await emptyStore(ready.admin_url);
    const result = await runSync(file, { XDG_CONFIG_HOME: config, MERCHANT_KIT_BASE_URL: ready.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: store.credential });
    let summary = null;
    try {
      summary = JSON.parse(result.stdout);
    } catch {
      /* reported below */
    }
    const waits = result.stderr.split('\n').filter((l) => l.startsWith('waiting '));
    return {
      limits,
      exit_code: result.code,
      seconds: Math.round(result.ms) / 1000,
      operations: summary?.operations ?? null,
      batches: summary?.batches ?? null,
      results: summary?.results ?? null,
      snapshot_status: summary?.snapshot?.status ?? null,
      waits: waits.length,
      waited_seconds: waits.reduce((s, l) => s + Number(/waiting ([\d.]+) s/.exec(l)?.[1] ?? 0), 0),
      error: result.code === 0 ? null : result.stderr.split('\n').filter(Boolean).slice(-3).join(' | '),
    };
  } finally {
    child.kill('SIGTERM');
  }
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) {
    console.error('Build first: npx tsup (or npm run build).');
    process.exit(1);
  }
  const file = await menuFile();
  const config = mkdtempSync(join(tmpdir(), 'merchant-kit-bench-'));
  const out = [];
  try {
    for (const limits of flags.limits.split(',')) {
      if (!flags.json) console.log(`catalog sync --full-snapshot, ${products.toLocaleString('en-US')} products, emulator --limits ${limits} …`);
      const r = await run(limits, file, config);
      out.push(r);
      if (!flags.json) {
        const ok = r.exit_code === 0 && r.results?.failed === 0 && r.snapshot_status === 'completed';
        console.log(`  ${r.seconds} s end to end; ${r.operations} operations in ${r.batches} batches; ${JSON.stringify(r.results)}; snapshot ${r.snapshot_status}`);
        console.log(`  waited ${r.waits} times (${r.waited_seconds} s) on 429/409; ${ok ? 'no batch failed' : `FAILED: ${r.error ?? 'see results'}`}`);
        if (limits === 'off') console.log(`  target < ${TARGET_MS / 1000} s: ${r.seconds * 1000 < TARGET_MS ? 'met' : 'NOT met'}`);
      }
    }
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
  if (flags.json) console.log(JSON.stringify({ products, runs: out }, null, 2));
  const failed = out.some((r) => r.exit_code !== 0 || r.results?.failed !== 0);
  process.exit(failed ? 1 : 0);
}

await main();
