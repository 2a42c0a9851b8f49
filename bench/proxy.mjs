// Proxy benchmark: the per-request overhead of `merchant-kit proxy` (validation on, recording on)
// against direct calls to the same emulator, in one run. The emulator runs in a child process, the
// proxy in another (the built CLI), autocannon here.
//
//   node bench/proxy.mjs [--duration 10] [--connections 10] [--json]
//
// Needs the build (`npx tsup`). Target: p50 overhead under 2 ms.
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './lib/args.mjs';

const HERE = import.meta.dirname;
const TARGET_P50_OVERHEAD_MS = 2;

async function serve() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const { serveParent } = await import('./lib/child.mjs');
  const emu = await startEmulator({ port: 0, memory: true, limits: false, clock: 'system' });
  const test = emu.stores.find((s) => s.environment === 'test');
  serveParent([emu], { sandboxUrl: emu.sandbox_base_url, credential: test.credential });
}

function startProxy(to, record) {
  const child = spawn(process.execPath, [join(HERE, '..', 'bin', 'merchant-kit.js'), 'proxy', '--to', to, '--port', '0', '--record', record], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /Proxy listening on (\S+)/.exec(err);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited (${code}): ${err}`)));
  });
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      json: { type: 'boolean', default: false },
    },
  });
  const { default: autocannon } = await import('autocannon');
  const server = fork(import.meta.filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    server.once('message', resolve);
    server.once('exit', (code) => reject(new Error(`the server process exited (${code})`)));
  });
  const dir = mkdtempSync(join(tmpdir(), 'mk-bench-proxy-'));
  const proxy = await startProxy(ready.sandboxUrl, join(dir, 'session.jsonl'));
  const load = (url) =>
    autocannon({
      url: `${url}/me`,
      headers: { authorization: `Bearer ${ready.credential}` },
      connections: Number(values.connections),
      duration: Number(values.duration),
    });
  try {
    // Warm both paths (JIT, connection pools) before measuring.
    await autocannon({ url: `${proxy.url}/me`, headers: { authorization: `Bearer ${ready.credential}` }, connections: 2, amount: 500 });
    const direct = await load(ready.sandboxUrl);
    const proxied = await load(proxy.url);
    const row = (name, r) => ({ name, rps: Math.round(r.requests.average), mean_ms: r.latency.average, p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors + r.non2xx });
    const rows = [row('direct GET /sandbox/v1/me', direct), row('through the proxy', proxied)];
    // autocannon's percentiles are whole milliseconds; the mean shows the overhead below 1 ms too.
    const overhead = proxied.latency.p50 - direct.latency.p50;
    const meanOverhead = Math.round((proxied.latency.average - direct.latency.average) * 100) / 100;
    if (values.json) {
      console.log(JSON.stringify({ rows, p50_overhead_ms: overhead, mean_overhead_ms: meanOverhead, target_ms: TARGET_P50_OVERHEAD_MS }));
    } else {
      console.table(rows);
      console.log(`p50 overhead: ${overhead} ms, mean overhead ${meanOverhead} ms (target p50 < ${TARGET_P50_OVERHEAD_MS} ms) ${overhead < TARGET_P50_OVERHEAD_MS ? 'met' : 'NOT met'}`);
    }
  } finally {
    proxy.child.kill('SIGTERM');
    server.send('close');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
