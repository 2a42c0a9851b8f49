// Orders benchmark (needs the build: `npx tsup`). The servers run in a child process, the load in
// this one, so the load generator and the server never share an event loop.
//
//   node bench/orders.mjs [--orders 10000] [--duration 5] [--connections 20] [--profile]
//
// 1. simulates N orders through POST /_emulator/orders (8 in flight) and reports orders/s;
// 2. pages through GET /events with limit=200 and reports events/s (target ≥ 20,000);
// 3. autocannon on GET /v1/orders/{id} beside a bare fastify route answering the same body
//    (target ≥ 50 %), with the server's CPU time per request.
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const CONCURRENCY = 8;

async function call(url, method, credential, body) {
  const headers = { 'content-type': 'application/json' };
  if (credential) headers.authorization = `Bearer ${credential}`;
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function seedMenu(base, credential) {
  await call(`${base}/catalog/categories/CAT-1`, 'PUT', credential, { name: 'Menú' });
  await call(`${base}/catalog/products/HB-1`, 'PUT', credential, {
    name: 'Hamburguesa', category_external_id: 'CAT-1', price: '35000',
    option_groups: [{ external_id: 'G-1', name: 'Extras', min_select: 0, max_select: 2, options: [{ external_id: 'O-1', name: 'Queso', price: '5000' }] }],
  });
  await call(`${base}/catalog/products/BEB-1`, 'PUT', credential, { name: 'Gaseosa', category_external_id: 'CAT-1', price: '12000' });
}

// ---------------------------------------------------------------- child: the servers under test

async function serve() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const { bareServer, serveParent } = await import('./lib/child.mjs');
  const emu = await startEmulator({ port: 0, memory: true, limits: false, clock: 'manual' });
  const live = emu.stores.find((s) => s.environment === 'live');
  await seedMenu(emu.live_base_url, live.credential);
  const order = (await call(`${emu.admin_url}/orders`, 'POST', null, { store_id: live.store_id })).data;
  const body = await call(`${emu.live_base_url}/orders/${order.id}`, 'GET', live.credential);
  // The same JSON body as GET /v1/orders/{id}, from a route with no auth, no validation and no database.
  const bare = await bareServer('/v1/orders/:id', body);
  serveParent([bare, emu], {
    bareUrl: `http://127.0.0.1:${bare.server.address().port}/v1/orders/${order.id}`,
    orderUrl: `${emu.live_base_url}/orders/${order.id}`,
    meUrl: `${emu.live_base_url}/me`,
    liveCredential: live.credential,
    adminUrl: emu.admin_url,
    sandboxUrl: emu.sandbox_base_url,
    test: emu.stores.find((s) => s.environment === 'test'),
  });
}

// ---------------------------------------------------------------- parent: load and measurements

async function main() {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '10000' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '20' },
      profile: { type: 'boolean', default: false },
    },
  });
  const orders = Number(values.orders);
  const { default: autocannon } = await import('autocannon');
  const execArgv = [];
  if (values.profile) {
    // The server's CPU profile goes to bench/results/.
    const dir = join(import.meta.dirname, 'results');
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const child = fork(import.meta.filename, ['--serve'], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the server process exited (${code})`)));
  });
  try {
    const { test } = ready;
    await seedMenu(ready.sandboxUrl, test.credential);

    // 1. Simulator throughput.
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < orders) {
          next++;
          await call(`${ready.adminUrl}/orders`, 'POST', null, { store_id: test.store_id });
        }
      }),
    );
    const simSeconds = (performance.now() - started) / 1000;
    console.log(`simulator: ${orders} orders in ${simSeconds.toFixed(2)} s = ${Math.round(orders / simSeconds)} orders/s`);

    // 2. Feed paging, limit=200, following next_cursor while has_more.
    let events = 0;
    let after = null;
    const feedStart = performance.now();
    for (;;) {
      const page = await call(`${ready.sandboxUrl}/events?limit=200${after ? `&after=${after}` : ''}`, 'GET', test.credential);
      events += page.data.length;
      after = page.next_cursor;
      if (!page.has_more) break;
    }
    const feedSeconds = (performance.now() - feedStart) / 1000;
    console.log(`feed: ${events} events in ${feedSeconds.toFixed(2)} s = ${Math.round(events / feedSeconds)} events/s (target ≥ 20000)`);

    // 3. GET /v1/orders/{id} beside the bare route.
    const cpu = () => new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu.user + m.cpu.system));
      child.send('cpu');
    });
    const load = async (url, headers) => {
      const before = await cpu();
      const r = await autocannon({ url, headers, connections: Number(values.connections), duration: Number(values.duration) });
      const used = (await cpu()) - before;
      return { rps: Math.round(r.requests.average), p99: r.latency.p99, cpuPerRequest: used / Math.max(1, r.requests.total), non2xx: r.non2xx };
    };
    const bare = await load(ready.bareUrl, {});
    const real = await load(ready.orderUrl, { authorization: `Bearer ${ready.liveCredential}` });
    // The foundation's GET /v1/me through the same HTTP core, for scale.
    const me = await load(ready.meUrl, { authorization: `Bearer ${ready.liveCredential}` });
    console.log(`bare fastify: ${bare.rps} req/s, p99 ${bare.p99} ms, ${bare.cpuPerRequest.toFixed(0)} µs CPU/request`);
    console.log(`GET /v1/orders/{id}: ${real.rps} req/s, p99 ${real.p99} ms, ${real.cpuPerRequest.toFixed(0)} µs CPU/request, non-2xx ${real.non2xx}`);
    console.log(`GET /v1/me (same HTTP core, smaller body): ${me.rps} req/s, ${me.cpuPerRequest.toFixed(0)} µs CPU/request`);
    console.log(`ratio: ${((real.rps / bare.rps) * 100).toFixed(0)} % of requests/s, ${((bare.cpuPerRequest / real.cpuPerRequest) * 100).toFixed(0)} % by CPU (target ≥ 50 %)`);
  } finally {
    child.send('close');
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
