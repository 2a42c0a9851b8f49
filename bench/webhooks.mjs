// Webhooks benchmark, run by hand after `npx tsup`: `node bench/webhooks.mjs [deliveries] [latency-samples]`.
// 1. deliveries per second to a local receiver that answers 200 at once (target ≥ 1,000/s), manual clock;
// 2. event-to-first-attempt latency p50/p99 with the system clock (target p99 < 100 ms): events are
//    written one at a time, the clock starts when the event's transaction commits and stops when the
//    receiver gets the request.
import http from 'node:http';
import { spawn } from 'node:child_process';
import { startEmulator } from '../dist/emulator/index.js';
import { benchArgs } from './lib/args.mjs';

const { positionals } = benchArgs(import.meta.url, { options: {}, allowPositionals: true });
if (positionals.length > 2 || positionals.some((p) => !/^[1-9]\d*$/.test(p))) {
  console.error('error: the deliveries and the latency samples are positive whole numbers\nusage: node bench/webhooks.mjs [deliveries] [latency-samples]');
  process.exit(2);
}
const DELIVERIES = Number(positionals[0] ?? 10_000);
const SAMPLES = Number(positionals[1] ?? 1_000);

async function receiver(onRequest) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      onRequest(req);
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}/hook` };
}

async function configure(emu, url) {
  const test = emu.stores.find((s) => s.environment === 'test');
  const res = await fetch(`${emu.sandbox_base_url}/webhook`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${test.credential}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['*'] }),
  });
  if (res.status !== 201) throw new Error(`PUT /webhook: ${res.status}`);
  return { env: emu.emulator.envs.test, test };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// A receiver in its own process (as a real one would be): answers 200 at once, counts at GET /count.
const RECEIVER = `
const http = require('node:http');
let count = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'GET') return res.end(String(count));
    count++;
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function childReceiver() {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((r) => child.stdout.once('data', (d) => r(Number(String(d).trim()))));
  const base = `http://127.0.0.1:${port}`;
  return { url: `${base}/hook`, count: async () => Number(await (await fetch(`${base}/count`)).text()), close: () => child.kill() };
}

// 1. Throughput.
{
  const rx = await childReceiver();
  const emu = await startEmulator({ port: 0, memory: true, clock: 'manual', limits: false });
  try {
    const { env, test } = await configure(emu, rx.url);
    const started = performance.now();
    for (let i = 0; i < DELIVERIES; i += 500) {
      // Through the storage port, as the API's writes do: one transaction of 500 events.
      await env.store.tx(async (tx) => {
        for (let j = i; j < Math.min(DELIVERIES, i + 500); j++) await tx.emit('webhook.test', test.store_id, { n: j }, test.integration_id);
      });
      await new Promise((r) => setImmediate(r));
    }
    while ((await rx.count()) < DELIVERIES) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - started) / 1000;
    console.log(`throughput: ${DELIVERIES} deliveries in ${seconds.toFixed(2)} s = ${Math.round(DELIVERIES / seconds)} deliveries/s (target ≥ 1000/s)`);
  } finally {
    await emu.close();
    rx.close();
  }
}

// 2. Latency with the system clock.
{
  const sentAt = new Map();
  const latencies = [];
  let waiting = null;
  const rx = await receiver((req) => {
    const t = sentAt.get(req.headers['x-service-event-id']);
    if (t !== undefined) latencies.push(performance.now() - t);
    waiting?.();
  });
  const emu = await startEmulator({ port: 0, memory: true, clock: 'system', limits: false });
  try {
    const { env, test } = await configure(emu, rx.url);
    for (let i = 0; i < SAMPLES; i++) {
      const arrived = new Promise((r) => (waiting = r));
      // Timed from before the write: the delivery may start as soon as the transaction commits.
      const before = performance.now();
      const [event] = await env.store.tx((tx) => tx.emit('webhook.test', test.store_id, { n: i }, test.integration_id));
      sentAt.set(event.id, before);
      await arrived;
      await new Promise((r) => setTimeout(r, 2));
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `latency (system clock, ${latencies.length} events): p50 ${percentile(latencies, 50).toFixed(2)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${latencies.at(-1).toFixed(2)} ms (target p99 < 100 ms)`,
    );
  } finally {
    await emu.close();
    rx.server.close();
  }
}
