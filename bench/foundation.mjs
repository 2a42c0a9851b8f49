// Foundation benchmark: the emulator's HTTP core against a bare fastify route, and a 500-operation
// catalog batch. The servers run in a child process (one core), autocannon in this one (the other),
// so the load generator and the server never share an event loop.
//
//   node bench/foundation.mjs [--duration 10] [--connections 50] [--runs 10] [--repeat 3] [--limits on|off]
//                             [--only bare,me,products,batch] [--profile] [--json]
//
// Needs the build (`npx tsup`). --profile writes a CPU profile of the server per measured route to
// bench/results/ and prints its top frames by self time.
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ask, median } from './lib/child.mjs';
import { topFrames } from './lib/top-frames.mjs';
import { benchArgs } from './lib/args.mjs';

const HERE = import.meta.dirname;
const PRODUCTS = 1000;
const BATCH_SIZE = 500;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 20;
const TARGET_PAGE_CACHED = 0.5;
const TARGET_PAGE_UNCACHED = 0.25;

// ---------------------------------------------------------------- child: the servers under test

async function serve() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const { bareServer, serveParent, raiseRequestAllowance } = await import('./lib/child.mjs');
  const limits = process.argv[process.argv.indexOf('--limits') + 1] !== 'off';
  const emu = await startEmulator({ port: 0, memory: true, limits, clock: 'system' });
  // Limits on, with the per-integration allowance raised so that the load is admitted (see lib/child.mjs).
  if (limits) raiseRequestAllowance(emu.emulator);
  const live = emu.stores.find((s) => s.environment === 'live');
  const res = await fetch(`${emu.live_base_url}/me`, { headers: { authorization: `Bearer ${live.credential}` } });
  const meBody = await res.json();
  // The same JSON body as GET /me, from a route with no auth, no validation and no database.
  const bare = await bareServer('/me', meBody);
  // The products page's bytes, once the parent has seeded the catalog: served as is by a second bare route.
  let pageServer = null;
  process.on('message', async (m) => {
    if (m?.page === undefined) return;
    pageServer = await bareServer('/catalog/products', m.page);
    process.send({ pageUrl: `http://127.0.0.1:${pageServer.server.address().port}/catalog/products?limit=50` });
  });
  // A write between reads: one row changed in a table of the bench's own, which moves the
  // database's change counter as any API write does, so no page is served from the page cache (each
  // request runs the page's query and joins its products' texts). What a write to other rows
  // leaves alone stays: the credential's records and each product's text (emulator/adapters/sqlite/row-watch.ts).
  // With `{ tick: true, kind: 'product' }` the write touches one product of the page instead (its
  // text is written again), cycling through the page: a sync that writes and reads in turns.
  // The embedded storage's live database (the SQLite adapter's; the bench measures that one).
  const db = emu.emulator.storage.env('live').db;
  db.exec('CREATE TEMP TABLE bench_tick (n INTEGER); INSERT INTO bench_tick VALUES (0)');
  const tick = db.prepare('UPDATE bench_tick SET n = n + 1');
  const touch = db.prepare('UPDATE products SET price = price WHERE rowid = ?');
  let kind = 'other';
  let pageRows = null;
  let next = 0;
  process.on('message', (m) => {
    if (m?.tick) kind = m.kind ?? 'other';
  });
  const write = () => {
    if (kind === 'other') return tick.run();
    pageRows ??= db.prepare('SELECT rowid FROM products ORDER BY id LIMIT 50').pluck().all();
    return touch.run(pageRows[next++ % pageRows.length]);
  };
  const port = Number(new URL(emu.url).port);
  serveParent([bare, emu, { close: async () => pageServer?.close() }], { bareUrl: `http://127.0.0.1:${bare.server.address().port}`, liveUrl: emu.live_base_url, credential: live.credential }, {
    onTick: ({ server }) => isEmulator(server, port) && write(),
  });
}

// Whether a request's server is the emulator's: asked once per server (getsockname is a system call).
const servers = new WeakMap();
function isEmulator(server, port) {
  let is = servers.get(server);
  if (is === undefined) servers.set(server, (is = server.address()?.port === port));
  return is;
}

// ---------------------------------------------------------------- parent: load and measurements

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      runs: { type: 'string', default: '10' },
      repeat: { type: 'string', default: '3' },
      limits: { type: 'string', default: 'on' },
      profile: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      only: { type: 'string', default: 'bare,me,products,batch' },
    },
  });
  const only = new Set(values.only.split(','));
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const runs = Number(values.runs);
  const repeat = Number(values.repeat);
  const { default: autocannon } = await import('autocannon');

  const resultsDir = join(HERE, 'results');
  if (values.profile) mkdirSync(resultsDir, { recursive: true });
  const child = fork(import.meta.filename, ['--serve', '--limits', values.limits], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

  const results = { duration, connections, repeat, limits: values.limits, load: [], seed: null, batch: null, profiles: {}, notes: [] };
  try {
    results.seed = await seedCatalog(api);
    const cpu = async () => {
      const m = await ask(child, 'cpu');
      return m.cpu.user + m.cpu.system;
    };
    const measure = async (name, url, headers) => {
      const before = await cpu();
      const r = await autocannon({ url, connections, duration, headers });
      const used = (await cpu()) - before;
      return {
        name,
        requests_per_second: r.requests.average,
        p50_ms: r.latency.p50,
        p99_ms: r.latency.p99,
        server_cpu_us_per_request: used / Math.max(1, r.requests.total),
        non_2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      };
    };
    // A CPU profile of one phase (its last repeat) with its top frames: lib/child.mjs, lib/top-frames.mjs.
    const load = async (name, url, headers, profileAs, last) => {
      if (!values.profile || !profileAs || !last) return measure(name, url, headers);
      await ask(child, { profile: 'start' });
      const row = await measure(name, url, headers);
      const file = join(resultsDir, `foundation-${profileAs}-${Date.now()}.cpuprofile`);
      await ask(child, { profile: 'stop', file });
      results.profiles[profileAs] = { file, top: topFrames(JSON.parse(readFileSync(file, 'utf8')), 5) };
      return row;
    };
    const products = only.has('products') && results.seed.listed > 0;
    if (only.has('products') && !products) results.notes.push('GET /catalog/products did not answer 200: catalog load skipped.');
    let pageUrl = null;
    if (products) {
      // The bare reference for the page: fastify sending the same bytes as the emulator's first page.
      const page = await (await api('GET', '/catalog/products?limit=50')).text();
      pageUrl = (await ask(child, { page })).pageUrl;
      results.page_bytes = Buffer.byteLength(page);
    }
    const pageName = `emulator GET /v1/catalog/products?limit=50 (${results.seed.listed} products)`;
    const rounds = [];
    for (let i = 0; i < repeat; i++) {
      const last = i === repeat - 1;
      const round = [];
      const bare = await load('bare fastify GET /me', `${ready.bareUrl}/me`, {});
      round.push({ ...bare, reference: bare });
      if (only.has('me')) round.push({ ...(await load('emulator GET /v1/me', `${ready.liveUrl}/me`, auth, 'me', last)), reference: bare });
      if (products) {
        const barePage = await load(`bare fastify, the same page's ${results.page_bytes} bytes`, pageUrl, {});
        round.push({ ...barePage, reference: barePage });
        round.push({ ...(await load(`${pageName}, cached`, `${ready.liveUrl}/catalog/products?limit=50`, auth, 'products-cached', last)), reference: barePage });
        await ask(child, { tick: true });
        const uncached = await load(`${pageName}, a write between reads`, `${ready.liveUrl}/catalog/products?limit=50`, auth, 'products-uncached', last);
        await ask(child, { tick: false });
        round.push({ ...uncached, reference: barePage });
        await ask(child, { tick: true, kind: 'product' });
        const touched = await load(`${pageName}, a product changed between reads`, `${ready.liveUrl}/catalog/products?limit=50`, auth, 'products-touched', last);
        await ask(child, { tick: false });
        round.push({ ...touched, reference: barePage });
      }
      rounds.push(round);
    }
    // The median of each row over the rounds; ratios are taken within a round (the bare route ran beside it).
    results.load = rounds[0].map((row, k) => {
      const all = rounds.map((r) => r[k]);
      const pick = (f) => median(all.map(f));
      return {
        name: row.name,
        requests_per_second: Math.round(pick((r) => r.requests_per_second)),
        p50_ms: pick((r) => r.p50_ms),
        p99_ms: pick((r) => r.p99_ms),
        server_cpu_us_per_request: Math.round(pick((r) => r.server_cpu_us_per_request) * 10) / 10,
        ratio_to_bare: pick((r) => r.requests_per_second / r.reference.requests_per_second),
        cpu_ratio_to_bare: pick((r) => r.reference.server_cpu_us_per_request / r.server_cpu_us_per_request),
        non_2xx: all.reduce((n, r) => n + r.non_2xx, 0),
        errors: all.reduce((n, r) => n + r.errors, 0),
      };
    });
    if (only.has('batch') && results.seed.method === 'batch') results.batch = await batchRuns(api, runs);
    else if (only.has('batch')) results.notes.push('POST /catalog/batch is not available: batch median skipped.');
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
    // The batch limit (10 a minute, limits on): wait as told and run this one again, untimed until then.
    if (res.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
      r--;
      continue;
    }
    times.push(performance.now() - t0);
    if (res.status !== 200 || body.data.summary.failed > 0) throw new Error(`batch run answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  return { runs, operations: BATCH_SIZE, median_ms: median(times), min_ms: Math.min(...times), max_ms: Math.max(...times) };
}

function print(r) {
  const pad = (s, n) => String(s).padEnd(n);
  const num = (s, n) => String(s).padStart(n);
  console.log(`\nfoundation: ${r.connections} connections, ${r.duration} s a route, median of ${r.repeat} rounds, limits ${r.limits}\n`);
  const pct = (x) => `${Math.round(x * 100)} %`;
  const width = Math.max(...r.load.map((row) => row.name.length)) + 2;
  console.log(`${pad('route', width)}${num('req/s', 9)}${num('p50 ms', 9)}${num('p99 ms', 9)}${num('vs bare', 9)}${num('µs CPU/req', 12)}${num('vs bare', 9)}`);
  for (const row of r.load) {
    const flag = row.non_2xx || row.errors ? `  (${row.non_2xx} non-2xx, ${row.errors} errors)` : '';
    console.log(
      `${pad(row.name, width)}${num(row.requests_per_second, 9)}${num(row.p50_ms, 9)}${num(row.p99_ms, 9)}${num(pct(row.ratio_to_bare), 9)}` +
        `${num(row.server_cpu_us_per_request, 12)}${num(pct(row.cpu_ratio_to_bare), 9)}${flag}`,
    );
  }
  if (r.seed.created_ms.length) console.log(`\nseeding: ${r.seed.created_ms.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} a batch of ${BATCH_SIZE} new products`);
  if (r.batch) {
    console.log(`batch of ${r.batch.operations} price changes: median ${r.batch.median_ms.toFixed(1)} ms a request (min ${r.batch.min_ms.toFixed(1)}, max ${r.batch.max_ms.toFixed(1)}, ${r.batch.runs} runs)`);
  }
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  const me = r.load.find((row) => row.name === 'emulator GET /v1/me');
  if (me) {
    console.log(`\ntarget GET /v1/me ≥ ${TARGET_RATIO * 100} % of bare: ${verdict(me.ratio_to_bare >= TARGET_RATIO)}; p99 < ${TARGET_P99_MS} ms: ${verdict(me.p99_ms < TARGET_P99_MS)}`);
  }
  const cached = r.load.find((row) => row.name.endsWith(', cached'));
  const uncached = r.load.find((row) => row.name.endsWith(', a write between reads'));
  if (cached) console.log(`target products page, cached, ≥ ${TARGET_PAGE_CACHED * 100} % of bare page: ${verdict(cached.ratio_to_bare >= TARGET_PAGE_CACHED)}`);
  if (uncached) console.log(`target products page, a write between reads, ≥ ${TARGET_PAGE_UNCACHED * 100} % of bare page: ${verdict(uncached.ratio_to_bare >= TARGET_PAGE_UNCACHED)}`);
  for (const [name, p] of Object.entries(r.profiles)) {
    console.log(`\nprofile ${name}: ${p.file}`);
    for (const f of p.top) console.log(`  ${String(f.percent).padStart(5)} %  ${f.frame}`);
  }
  for (const note of r.notes) console.log(`note: ${note}`);
}

if (process.argv.includes('--serve')) await serve();
else await main();
