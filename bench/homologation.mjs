// Homologation benchmark (needs the build: `npx tsup`). The emulator runs in a child process, the
// CLI runs as its own process, the load and the reference ERP run in this one.
//
//   node bench/homologation.mjs [--runs 3] [--duration 5] [--connections 20] [--repeat 3]
//                               [--only homologate,observer,recorder,zoo] [--json]
//                               [--variants text] [--concurrency 6] [--session-timeout 120]
//
// 1. `merchant-kit homologate` end to end against a fresh emulator (reset before each run): wall
//    time, median of --runs (target 5 s, must stay under 10 s);
// 2. the observer on the reference ERP of the tests (test/helpers/reference-erp.ts, bundled here with
//    esbuild), its tasks done by the tests' driver: time from POST /_emulator/homologation/{id}/start
//    to a complete, certified report;
// 3. the call recorder's cost: autocannon on authenticated GET /v1/orders/{id} with the recorder on
//    and off (BENCH-ONLY switch POST /_emulator/homologation/recorder), interleaved --repeat times in
//    one run; the median throughput ratio (target: recording costs at most 10 %) and CPU per request;
// 4. (only with --only zoo) the observer on the tests' zoo of ERPs (test/helpers/erps/, bundled
//    like the reference ERP): each variant --runs times on a store of its own, --concurrency sessions
//    at a time on the one emulator, each session with --session-timeout (the default 120 s): seconds
//    from POST …/start to a complete report, and whether the verdict was the expected one. Correct
//    and faulty variants are summed up apart (a faulty session must end as soon as its verdict is
//    certain too). --variants keeps the variants whose name contains the text.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ask, median } from './lib/child.mjs';
import { call } from './lib/call.mjs';
import { benchArgs } from './lib/args.mjs';

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

/** The tests' zoo of ERPs (test/helpers/erps/index.ts), bundled like the reference ERP. */
async function loadZoo() {
  const { build } = await import('esbuild');
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'zoo.mjs');
  await build({ entryPoints: [join(ROOT, 'test', 'helpers', 'erps', 'index.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, packages: 'external', logLevel: 'silent' });
  return import(pathToFileURL(outfile).href);
}

/** One observed session of a zoo variant on a new store of the emulator: seconds to a complete report, and the verdicts. */
async function observeZooVariant(zoo, ready, variant, defaultTimeout) {
  // A variant whose verdict is certain only at the deadline (no active product) names its own timeout.
  const sessionTimeout = variant.sessionTimeoutSeconds ?? defaultTimeout;
  const made = (await call(`${ready.adminUrl}/stores`, 'POST', null, { environment: 'test', name: `zoo ${variant.name}`.slice(0, 60) })).data;
  const id = made.integration.id;
  if (variant.settings) await call(`${ready.adminUrl}/integrations/${id}`, 'PATCH', null, { settings: variant.settings });
  const erp = await zoo.startErp({ baseUrl: ready.sandboxUrl, credential: made.credential }, variant.spec);
  let person;
  try {
    const started = performance.now();
    await call(`${ready.adminUrl}/homologation/${id}/start`, 'POST', null, { timeout_seconds: sessionTimeout });
    person = zoo.startPerson(ready.adminUrl, id, erp.api, variant.spec.publish ?? 'mixed', variant.personMs ?? (() => 200));
    const happening = variant.during?.(erp);
    let report;
    do {
      await new Promise((r) => setTimeout(r, 100));
      report = (await call(`${ready.adminUrl}/homologation/${id}`, 'GET')).data;
    } while (!report.complete && performance.now() - started < (sessionTimeout + 10) * 1000);
    const seconds = (performance.now() - started) / 1000;
    await happening;
    const got = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    const wrong = Object.keys(variant.expect).filter((k) => got[k] !== variant.expect[k]).map((k) => `${k} ${got[k]} (expected ${variant.expect[k]})`);
    return { seconds, wrong, complete: report.complete };
  } finally {
    await person?.stop();
    await erp.close();
  }
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      runs: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '20' },
      repeat: { type: 'string', default: '3' },
      only: { type: 'string', default: 'homologate,observer,recorder' },
      variants: { type: 'string', default: '' },
      concurrency: { type: 'string', default: '6' },
      'session-timeout': { type: 'string', default: '120' },
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
    // 4. The zoo: correct and faulty ERPs built differently, each session to its complete report.
    if (only.has('zoo')) {
      const zoo = await loadZoo();
      const variants = [...zoo.CORRECT.map((v) => ({ ...v, kind: 'correct' })), ...zoo.FAULTY.map((v) => ({ ...v, kind: 'faulty' }))].filter((v) => v.name.includes(values.variants));
      const jobs = variants.flatMap((v) => Array.from({ length: Number(values.runs) }, () => v));
      const outcomes = new Map(variants.map((v) => [v.name, []]));
      let next = 0;
      const worker = async () => {
        while (next < jobs.length) {
          const v = jobs[next++];
          const o = await observeZooVariant(zoo, ready, v, Number(values['session-timeout'])).catch((e) => ({ seconds: NaN, wrong: [`error: ${e.message}`], complete: false }));
          outcomes.get(v.name).push(o);
          log(`zoo ${v.kind} "${v.name}": ${o.seconds.toFixed(1)} s, ${o.complete ? 'complete' : 'NOT complete'}, ${o.wrong.length ? `WRONG: ${o.wrong.join('; ')}` : 'verdict as expected'}`);
        }
      };
      await Promise.all(Array.from({ length: Number(values.concurrency) }, worker));
      results.zoo = {};
      for (const kind of ['correct', 'faulty']) {
        const mine = variants.filter((v) => v.kind === kind);
        const times = mine.flatMap((v) => outcomes.get(v.name).map((o) => o.seconds)).filter(Number.isFinite);
        const right = mine.flatMap((v) => outcomes.get(v.name)).filter((o) => o.wrong.length === 0).length;
        results.zoo[kind] = { sessions: times.length, verdicts_right: right, median_seconds: median(times), max_seconds: Math.max(...times) };
        if (times.length) log(`zoo ${kind}: ${right}/${mine.length * Number(values.runs)} verdicts as expected; session start → complete report: median ${median(times).toFixed(1)} s, max ${Math.max(...times).toFixed(1)} s`);
      }
    }
    if (values.json) console.log(JSON.stringify(results, null, 2));
  } finally {
    child.send('close');
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
