// Foundation benchmark: the emulator's HTTP core against a bare fastify route, and a 500-operation
// catalog batch. The servers run in a child process (one core), autocannon in this one (the other),
// so the load generator and the server never share an event loop.
//
//   node bench/foundation.mjs [--duration 10] [--connections 50] [--runs 10] [--only bare,me,products,batch]
//                             [--profile] [--json]
//
// Needs the build (`npx tsup`). --profile writes the server's CPU profile to bench/results/.
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const HERE = import.meta.dirname;
const PRODUCTS = 1000;
const BATCH_SIZE = 500;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 20;

// ---------------------------------------------------------------- child: the servers under test

async function serve() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const { bareServer, serveParent } = await import('./lib/child.mjs');
  const emu = await startEmulator({ port: 0, memory: true, limits: false, clock: 'system' });
  const live = emu.stores.find((s) => s.environment === 'live');
  const res = await fetch(`${emu.live_base_url}/me`, { headers: { authorization: `Bearer ${live.credential}` } });
  const meBody = await res.json();
  // The same JSON body as GET /me, from a route with no auth, no validation and no database.
  const bare = await bareServer('/me', meBody);
  serveParent([bare, emu], { bareUrl: `http://127.0.0.1:${bare.server.address().port}`, liveUrl: emu.live_base_url, credential: live.credential });
}

// ---------------------------------------------------------------- parent: load and measurements

async function main() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      runs: { type: 'string', default: '10' },
      profile: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      only: { type: 'string', default: 'bare,me,products,batch' },
    },
  });
  const only = new Set(values.only.split(','));
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const runs = Number(values.runs);
  const { default: autocannon } = await import('autocannon');

  const execArgv = [];
  if (values.profile) {
    const dir = join(HERE, 'results');
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const child = fork(import.meta.filename, ['--serve'], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the server process exited (${code})`)));
  });
  const auth = { authorization: `Bearer ${ready.credential}` };
  const api = (method, path, body, headers = {}) =>
    fetch(`${ready.liveUrl}${path}`, {
      method,
      headers: { ...auth, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  const results = { duration, connections, load: [], seed: null, batch: null, notes: [] };
  try {
    results.seed = await seedCatalog(api);
    const cpu = () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m.cpu.user + m.cpu.system));
        child.send('cpu');
      });
    const load = async (name, url, headers) => {
      const before = await cpu();
      const r = await autocannon({ url, connections, duration, headers });
      const used = (await cpu()) - before;
      return {
        name,
        requests_per_second: Math.round(r.requests.average),
        p50_ms: r.latency.p50,
        p99_ms: r.latency.p99,
        server_cpu_us_per_request: Math.round((used / Math.max(1, r.requests.total)) * 10) / 10,
        non_2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      };
    };
    const bare = await load('bare fastify GET /me', `${ready.bareUrl}/me`, {});
    results.load.push(bare);
    if (only.has('me')) results.load.push(await load('emulator GET /v1/me', `${ready.liveUrl}/me`, auth));
    if (only.has('products') && results.seed.listed > 0) {
      const name = `emulator GET /v1/catalog/products?limit=50 (${results.seed.listed} products)`;
      results.load.push(await load(name, `${ready.liveUrl}/catalog/products?limit=50`, auth));
    } else if (only.has('products')) results.notes.push('GET /catalog/products no respondió 200: carga de catálogo omitida.');
    for (const row of results.load) {
      row.ratio_to_bare = row.requests_per_second / bare.requests_per_second;
      row.cpu_ratio_to_bare = bare.server_cpu_us_per_request / row.server_cpu_us_per_request;
    }
    if (only.has('batch') && results.seed.method === 'batch') results.batch = await batchRuns(api, runs);
    else if (only.has('batch')) results.notes.push('POST /catalog/batch no está disponible: mediana de lotes omitida.');
  } finally {
    child.send('close');
    await new Promise((r) => child.once('exit', r));
  }
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else print(results);
}

const productOp = (n, price) => ({
  op: 'upsert_product',
  external_id: `bench-${n}`,
  data: { name: `Producto ${n}`, category_external_id: 'bench', price: String(price), description: 'Producto de prueba de rendimiento' },
});

/** 1,000 products through the API: two batches of 500 (or single PUTs when there is no batch route yet). */
async function seedCatalog(api) {
  const cat = await api('PUT', '/catalog/categories/bench', { name: 'Bench' });
  if (cat.status >= 300) throw new Error(`PUT /catalog/categories/bench answered ${cat.status}: ${await cat.text()}`);
  const seed = { method: 'batch', created_ms: [], listed: 0 };
  for (let start = 0; start < PRODUCTS; start += BATCH_SIZE) {
    const operations = Array.from({ length: BATCH_SIZE }, (_, i) => productOp(start + i, 10_000 + start + i));
    const t0 = performance.now();
    const res = await api('POST', '/catalog/batch', { operations }, { 'idempotency-key': `bench-seed-${start}` });
    const body = await res.json();
    if (res.status === 404 && start === 0) {
      seed.method = 'put';
      break;
    }
    if (res.status !== 200 || body.data.summary.failed > 0) throw new Error(`seed batch answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
    seed.created_ms.push(performance.now() - t0);
  }
  if (seed.method === 'put') {
    for (let n = 0; n < PRODUCTS; n++) {
      const { data } = productOp(n, 10_000 + n);
      const res = await api('PUT', `/catalog/products/bench-${n}`, data);
      if (res.status >= 300) throw new Error(`PUT product answered ${res.status}: ${await res.text()}`);
    }
  }
  const list = await api('GET', '/catalog/products?limit=50');
  if (list.status === 200) seed.listed = await countProducts(api);
  return seed;
}

async function countProducts(api) {
  let count = 0;
  let cursor = null;
  do {
    const res = await api('GET', `/catalog/products?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    const body = await res.json();
    count += body.data.length;
    cursor = body.next_cursor;
  } while (cursor);
  return count;
}

/** The median of `runs` batches of 500 price updates, one after the other, each with its own key. */
async function batchRuns(api, runs) {
  const times = [];
  for (let r = 0; r < runs; r++) {
    const operations = Array.from({ length: BATCH_SIZE }, (_, i) => productOp(i, 20_000 + r * 1000 + i));
    const t0 = performance.now();
    const res = await api('POST', '/catalog/batch', { operations }, { 'idempotency-key': `bench-run-${r}-${Date.now()}` });
    const body = await res.json();
    times.push(performance.now() - t0);
    if (res.status !== 200 || body.data.summary.failed > 0) throw new Error(`batch run answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { runs, operations: BATCH_SIZE, median_ms: median, min_ms: sorted[0], max_ms: sorted.at(-1) };
}

function print(r) {
  const pad = (s, n) => String(s).padEnd(n);
  const num = (s, n) => String(s).padStart(n);
  console.log(`\nfoundation: ${r.connections} conexiones, ${r.duration} s por ruta\n`);
  const pct = (x) => `${Math.round(x * 100)} %`;
  console.log(`${pad('ruta', 62)}${num('req/s', 9)}${num('p50 ms', 9)}${num('p99 ms', 9)}${num('vs bare', 9)}${num('µs CPU/req', 12)}${num('vs bare', 9)}`);
  for (const row of r.load) {
    const flag = row.non_2xx || row.errors ? `  (${row.non_2xx} no-2xx, ${row.errors} errores)` : '';
    console.log(
      `${pad(row.name, 62)}${num(row.requests_per_second, 9)}${num(row.p50_ms, 9)}${num(row.p99_ms, 9)}${num(pct(row.ratio_to_bare), 9)}` +
        `${num(row.server_cpu_us_per_request, 12)}${num(pct(row.cpu_ratio_to_bare), 9)}${flag}`,
    );
  }
  if (r.seed.created_ms.length) console.log(`\ncarga inicial: ${r.seed.created_ms.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} por lote de ${BATCH_SIZE} altas`);
  if (r.batch) {
    console.log(`lote de ${r.batch.operations} cambios de precio: mediana ${r.batch.median_ms.toFixed(1)} ms por solicitud (mín ${r.batch.min_ms.toFixed(1)}, máx ${r.batch.max_ms.toFixed(1)}, ${r.batch.runs} corridas)`);
  }
  const me = r.load.find((row) => row.name === 'emulator GET /v1/me');
  if (me) {
    const okRatio = me.ratio_to_bare >= TARGET_RATIO;
    const okP99 = me.p99_ms < TARGET_P99_MS;
    console.log(`\nobjetivo GET /v1/me ≥ ${TARGET_RATIO * 100} % de bare: ${okRatio ? 'cumple' : 'NO cumple'}; p99 < ${TARGET_P99_MS} ms: ${okP99 ? 'cumple' : 'NO cumple'}`);
  }
  for (const note of r.notes) console.log(`nota: ${note}`);
}

if (process.argv.includes('--serve')) await serve();
else await main();
