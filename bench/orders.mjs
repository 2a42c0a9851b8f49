// Orders benchmark (needs the build: `npx tsup`). The servers run in a child process, the load in
// this one, so the load generator and the server never share an event loop.
//
//   node bench/orders.mjs [--orders 10000] [--duration 5] [--connections 20] [--repeat 3]
//                         [--limits on|off] [--recorder on|off] [--only feed,order] [--profile] [--json]
//
// 1. simulates N orders through POST /_emulator/orders (8 in flight) and reports orders/s;
// 2. pages through GET /events with limit=200 and reports events/s (target ≥ 50,000);
// 3. autocannon on GET /v1/orders/{id} beside a bare fastify route answering the same body
//    (target ≥ 75 % (issue 25) and ≤ 30 µs of server CPU a request), authenticated, limits on.
// Steps 2 and 3 run --repeat times, interleaved; the figures are the medians. --profile writes a CPU
// profile of the server process for the last round of each (the bare route's too) under bench/results/.
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ask, median } from './lib/child.mjs';
import { topFrames } from './lib/top-frames.mjs';
import { call } from './lib/call.mjs';
import { benchArgs } from './lib/args.mjs';

const CONCURRENCY = 8;
const TARGET_RATIO = 0.75;
const TARGET_CPU_US = 30;
const TARGET_EVENTS = 50_000;
const LIMITS_ON = !process.argv.includes('--limits') || process.argv[process.argv.indexOf('--limits') + 1] !== 'off';

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
  const { bareServer, serveParent, raiseRequestAllowance } = await import('./lib/child.mjs');
  const emu = await startEmulator({ port: 0, memory: true, limits: LIMITS_ON, clock: 'manual' });
  if (LIMITS_ON) raiseRequestAllowance(emu.emulator);
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
  const { values } = benchArgs(import.meta.url, {
    options: {
      orders: { type: 'string', default: '10000' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '20' },
      repeat: { type: 'string', default: '3' },
      limits: { type: 'string', default: 'on' },
      // The homologation call recorder runs on every API call, as users run it; `off` measures what it costs.
      recorder: { type: 'string', default: 'on' },
      only: { type: 'string', default: 'feed,order' },
      profile: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const orders = Number(values.orders);
  const repeat = Number(values.repeat);
  const only = new Set(values.only.split(','));
  const log = values.json ? () => {} : console.log;
  const { default: autocannon } = await import('autocannon');
  const resultsDir = join(import.meta.dirname, 'results');
  if (values.profile) mkdirSync(resultsDir, { recursive: true });
  const child = fork(import.meta.filename, ['--serve', '--limits', values.limits], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the server process exited (${code})`)));
  });
  const results = { limits: values.limits, recorder: values.recorder, orders, repeat, profiles: {} };
  // A CPU profile of one phase of the server (the last of its repeats), with its top frames.
  const profiled = async (name, last, work) => {
    if (!values.profile || !last) return work();
    await ask(child, { profile: 'start' });
    const out = await work();
    const file = join(resultsDir, `orders-${name}-${Date.now()}.cpuprofile`);
    await ask(child, { profile: 'stop', file });
    const { readFileSync } = await import('node:fs');
    results.profiles[name] = { file, top: topFrames(JSON.parse(readFileSync(file, 'utf8')), 5) };
    return out;
  };
  try {
    const { test } = ready;
    if (values.recorder === 'off') await call(`${ready.adminUrl}/homologation/recorder`, 'POST', null, { enabled: false });
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
    results.orders_per_second = Math.round(orders / simSeconds);
    log(`simulator: ${orders} orders in ${simSeconds.toFixed(2)} s = ${results.orders_per_second} orders/s`);

    const cpu = async () => {
      const m = await ask(child, 'cpu');
      return m.cpu.user + m.cpu.system;
    };

    // 2. Feed paging, limit=200, following next_cursor while has_more.
    const feed = async () => {
      let events = 0;
      let after = null;
      const cpuStart = await cpu();
      const feedStart = performance.now();
      for (;;) {
        const page = await call(`${ready.sandboxUrl}/events?limit=200${after ? `&after=${after}` : ''}`, 'GET', test.credential);
        events += page.data.length;
        after = page.next_cursor;
        if (!page.has_more) break;
      }
      const seconds = (performance.now() - feedStart) / 1000;
      return { events, eventsPerSecond: events / seconds, cpuPerEvent: ((await cpu()) - cpuStart) / events };
    };

    // 3. GET /v1/orders/{id} beside the bare route.
    const load = async (url, headers) => {
      const before = await cpu();
      const r = await autocannon({ url, headers, connections: Number(values.connections), duration: Number(values.duration) });
      const used = (await cpu()) - before;
      return { rps: Math.round(r.requests.average), p99: r.latency.p99, cpuPerRequest: used / Math.max(1, r.requests.total), non2xx: r.non2xx };
    };
    const feeds = [];
    const rounds = [];
    for (let i = 0; i < repeat; i++) {
      const last = i === repeat - 1;
      if (only.has('feed')) {
        const f = await profiled('feed', last, feed);
        feeds.push(f);
        log(`feed #${i + 1}: ${f.events} events = ${Math.round(f.eventsPerSecond)} events/s, server ${f.cpuPerEvent.toFixed(2)} µs CPU/event`);
      }
      if (!only.has('order')) continue;
      const bare = await profiled('bare', last, () => load(ready.bareUrl, {}));
      const real = await profiled('order', last, () => load(ready.orderUrl, { authorization: `Bearer ${ready.liveCredential}` }));
      rounds.push({ bare, real, ratio: real.rps / bare.rps });
      log(`GET /v1/orders/{id} #${i + 1}: ${real.rps} req/s (bare ${bare.rps}) = ${((real.rps / bare.rps) * 100).toFixed(0)} %, ` +
        `${real.cpuPerRequest.toFixed(1)} µs CPU/request (bare ${bare.cpuPerRequest.toFixed(1)}), p99 ${real.p99} ms, non-2xx ${real.non2xx}`);
    }
    if (feeds.length) {
      results.feed_events_per_second = Math.round(median(feeds.map((f) => f.eventsPerSecond)));
      results.feed_cpu_us_per_event = median(feeds.map((f) => f.cpuPerEvent));
      log(`\nfeed limit=200: median ${results.feed_events_per_second} events/s (target ≥ ${TARGET_EVENTS}), server ${results.feed_cpu_us_per_event.toFixed(2)} µs CPU/event`);
    }
    if (rounds.length) {
      results.order = {
        ratio_to_bare: median(rounds.map((r) => r.ratio)),
        cpu_us_per_request: median(rounds.map((r) => r.real.cpuPerRequest)),
        bare_cpu_us_per_request: median(rounds.map((r) => r.bare.cpuPerRequest)),
        rps: median(rounds.map((r) => r.real.rps)),
        bare_rps: median(rounds.map((r) => r.bare.rps)),
        non_2xx: rounds.reduce((n, r) => n + r.real.non2xx, 0),
      };
      const o = results.order;
      log(`GET /v1/orders/{id} (limits ${values.limits}): median ${(o.ratio_to_bare * 100).toFixed(0)} % of bare (target ≥ ${TARGET_RATIO * 100} %), ` +
        `${o.cpu_us_per_request.toFixed(1)} µs CPU/request (target ≤ ${TARGET_CPU_US}; bare ${o.bare_cpu_us_per_request.toFixed(1)})`);
    }
    for (const [name, p] of Object.entries(results.profiles)) {
      log(`\nprofile ${name}: ${p.file}`);
      for (const f of p.top) log(`  ${String(f.percent).padStart(5)} %  ${f.frame}`);
    }
    if (values.json) console.log(JSON.stringify(results, null, 2));
  } finally {
    child.send('close');
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
