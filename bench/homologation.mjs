// Homologation benchmark (needs the build: `npx tsup`). The emulator runs in a child process, the
// CLI runs as its own process, the load and the reference ERP run in this one.
//
//   node bench/homologation.mjs [--runs 3] [--duration 5] [--connections 20] [--repeat 3]
//                               [--only homologate,observer,recorder] [--json]
//
// 1. `merchant-kit homologate` end to end against a fresh emulator (reset before each run): wall
//    time, median of --runs (target 5 s, must stay under 10 s);
// 2. the observer on the reference ERP of the tests (test/helpers/reference-erp.ts, bundled here with
//    esbuild), its tasks done by the tests' driver: time from POST /_emulator/homologation/{id}/start
//    to a complete, certified report;
// 3. the call recorder's cost: autocannon on authenticated GET /v1/orders/{id} with the recorder on
//    and off (BENCH-ONLY switch POST /_emulator/homologation/recorder), interleaved --repeat times in
//    one run; the median throughput ratio (target: recording costs at most 10 %) and CPU per request.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ask, median } from './lib/child.mjs';
import { call } from './lib/call.mjs';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'merchant-kit.js');
const TARGET_HOMOLOGATE_S = 5;
const LIMIT_HOMOLOGATE_S = 10;
const TARGET_RECORDER_COST = 0.1;

// ---------------------------------------------------------------- child: the emulator under test

async function serve() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const { serveParent, raiseRequestAllowance } = await import('./lib/child.mjs');
  const emu = await startEmulator({ port: 0, memory: true, clock: 'system' });
  // Limits stay on (the same code runs); the per-integration allowance is raised for the load test.
  raiseRequestAllowance(emu.emulator);
  serveParent([emu], { url: emu.url, adminUrl: emu.admin_url, sandboxUrl: emu.sandbox_base_url, liveUrl: emu.live_base_url, stores: emu.stores });
}

// ---------------------------------------------------------------- parent

/** Runs the built CLI to its end; resolves with its exit code and wall time. */
function runCli(args, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env, NO_COLOR: '1', CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, seconds: (performance.now() - started) / 1000, stderr }));
  });
}

/** The tests' reference ERP, bundled from TypeScript for this run (into bench/results/, ignored by git, where node_modules resolves). */
async function loadReferenceErp() {
  const { build } = await import('esbuild');
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'reference-erp.mjs');
  await build({ entryPoints: [join(ROOT, 'test', 'helpers', 'reference-erp.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, packages: 'external', logLevel: 'silent' });
  return import(pathToFileURL(outfile).href);
}

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '20' },
      repeat: { type: 'string', default: '3' },
      only: { type: 'string', default: 'homologate,observer,recorder' },
      json: { type: 'boolean', default: false },
    },
  });
  const only = new Set(values.only.split(','));
  const log = values.json ? () => {} : console.log;
  const scratch = mkdtempSync(join(tmpdir(), 'mk-bench-homologation-'));
  const child = fork(import.meta.filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the emulator process exited (${code})`)));
  });
  const test = ready.stores.find((s) => s.environment === 'test');
  const live = ready.stores.find((s) => s.environment === 'live');
  const results = {};
  try {
    // 1. homologate end to end, each run against a freshly reset emulator.
    if (only.has('homologate')) {
      const times = [];
      for (let i = 0; i < Number(values.runs); i++) {
        await call(`${ready.adminUrl}/reset`, 'POST');
        const r = await runCli(['homologate', '--report-dir', join(scratch, `run-${i}`), '--format', 'json,junit,html,md'], {
          MERCHANT_KIT_BASE_URL: ready.sandboxUrl,
          MERCHANT_KIT_CREDENTIAL: test.credential,
          XDG_CONFIG_HOME: join(scratch, 'config'),
        });
        if (r.code !== 0) throw new Error(`homologate exited ${r.code}: ${r.stderr}`);
        times.push(r.seconds);
        log(`homologate #${i + 1}: ${r.seconds.toFixed(2)} s, certified`);
      }
      const m = median(times);
      results.homologate_seconds = { median: m, min: Math.min(...times), max: Math.max(...times) };
      log(`homologate end to end: median ${m.toFixed(2)} s (min ${Math.min(...times).toFixed(2)}, max ${Math.max(...times).toFixed(2)}); target ${TARGET_HOMOLOGATE_S} s, limit ${LIMIT_HOMOLOGATE_S} s: ${m < LIMIT_HOMOLOGATE_S ? (m <= TARGET_HOMOLOGATE_S ? 'met' : 'under the limit') : 'MISSED'}`);
    }

    // 2. The observer on the reference ERP, its person's steps done by the tests' task driver:
    //    session start → complete, certified report.
    if (only.has('observer')) {
      const { startReferenceErp, driveTasks } = await loadReferenceErp();
      const times = [];
      for (let i = 0; i < Number(values.runs); i++) {
        await call(`${ready.adminUrl}/reset`, 'POST');
        const erp = await startReferenceErp(ready.sandboxUrl, test.credential);
        let driver;
        try {
          const started = performance.now();
          await call(`${ready.adminUrl}/homologation/${test.integration_id}/start`, 'POST', null, { timeout_seconds: 60 });
          driver = driveTasks(ready.adminUrl, test.integration_id, erp.operator);
          let report;
          do {
            await new Promise((r) => setTimeout(r, 25));
            report = (await call(`${ready.adminUrl}/homologation/${test.integration_id}`, 'GET')).data;
          } while (!report.complete);
          const seconds = (performance.now() - started) / 1000;
          if (!report.summary.certified) throw new Error(`the reference ERP was not certified: ${JSON.stringify(report.checks.filter((c) => c.status !== 'pass'))}`);
          times.push(seconds);
          log(`observer #${i + 1}: certified ${seconds.toFixed(2)} s after the session started (${report.tasks.length} tasks done)`);
        } finally {
          await driver?.stop();
          await erp.close();
        }
      }
      results.observer_seconds = { median: median(times), min: Math.min(...times), max: Math.max(...times) };
      log(`observer, session start → certified report: median ${median(times).toFixed(2)} s (min ${Math.min(...times).toFixed(2)}, max ${Math.max(...times).toFixed(2)})`);
    }

    // 3. The recorder's cost on authenticated GET /v1/orders/{id}, on and off, interleaved.
    if (only.has('recorder')) {
      await call(`${ready.adminUrl}/reset`, 'POST');
      await call(`${ready.liveUrl}/catalog/categories/CAT-1`, 'PUT', live.credential, { name: 'Menu' });
      await call(`${ready.liveUrl}/catalog/products/HB-1`, 'PUT', live.credential, { name: 'Burger', category_external_id: 'CAT-1', price: '35000' });
      const order = (await call(`${ready.adminUrl}/orders`, 'POST', null, { store_id: live.store_id })).data;
      const { default: autocannon } = await import('autocannon');
      const cpu = async () => {
        const m = await ask(child, 'cpu');
        return m.cpu.user + m.cpu.system;
      };
      const load = async (enabled) => {
        await call(`${ready.adminUrl}/homologation/recorder`, 'POST', null, { enabled });
        const before = await cpu();
        const r = await autocannon({ url: `${ready.liveUrl}/orders/${order.id}`, headers: { authorization: `Bearer ${live.credential}` }, connections: Number(values.connections), duration: Number(values.duration) });
        const used = (await cpu()) - before;
        return { rps: r.requests.average, cpu: used / Math.max(1, r.requests.total), non2xx: r.non2xx };
      };
      const rounds = [];
      for (let i = 0; i < Number(values.repeat); i++) {
        // Alternate which goes first, so a trend of the machine does not favour one side.
        const [on, off] = i % 2 ? [await load(true), await load(false)] : (([b, a]) => [a, b])([await load(false), await load(true)]);
        rounds.push({ on, off, cost: 1 - on.rps / off.rps });
        log(`GET /v1/orders/{id} #${i + 1}: recording ${Math.round(on.rps)} req/s (${on.cpu.toFixed(1)} µs CPU), off ${Math.round(off.rps)} req/s (${off.cpu.toFixed(1)} µs CPU): cost ${((1 - on.rps / off.rps) * 100).toFixed(1)} %, non-2xx ${on.non2xx + off.non2xx}`);
      }
      await call(`${ready.adminUrl}/homologation/recorder`, 'POST', null, { enabled: true });
      const cost = median(rounds.map((r) => r.cost));
      const cpuCost = median(rounds.map((r) => r.on.cpu / r.off.cpu - 1));
      results.recorder = { throughput_cost: cost, cpu_cost: cpuCost, rps_on: median(rounds.map((r) => r.on.rps)), rps_off: median(rounds.map((r) => r.off.rps)) };
      log(`recorder cost: median ${(cost * 100).toFixed(1)} % of throughput, ${(cpuCost * 100).toFixed(1)} % CPU per request (target ≤ ${TARGET_RECORDER_COST * 100} %): ${cost <= TARGET_RECORDER_COST ? 'met' : 'MISSED'}`);
    }
    if (values.json) console.log(JSON.stringify(results, null, 2));
  } finally {
    child.send('close');
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
