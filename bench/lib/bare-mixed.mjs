// The mixed workload's baseline: bare fastify routes at the mix's paths answering the exact bytes a
// real emulator answered (captured once after its set-up), with no auth, no validation and no
// database. It runs in a child process of its own, like the emulators; a run's "ratio to bare" is
// its requests/s over this server's in the same round, which takes out how busy the machine was.
//
// Child side: `node bench/lib/bare-mixed.mjs <bodies.json>` prints {"event":"ready","url":…,"pid":…}.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, exchange } from './mixed-workload.mjs';
import { removeOnExit, spawnReady } from './processes.mjs';

const FEED_PAGE = 10;

/**
 * The bodies of one request of each kind, taken from the real target `t` (one of its fresh orders is
 * acknowledged and accepted for it, and goes on in the pipeline).
 */
export async function captureBodies(t) {
  const id = t.fresh.shift();
  const get = async (path, headers = t.auth, method = 'GET', body) => {
    const res = await exchange(t.pools[0], method, path, headers, body);
    if (!res.ok) throw new Error(`capturing the baseline's bodies: ${method} ${path.split('?')[0]} answered ${res.status} ${res.code}`);
    return res.text;
  };
  const bodies = {
    order: await get(`${API}/orders/${id}`),
    products: await get(`${API}/catalog/products?limit=50`),
    // A reader at the feed's end, as the mix's readers are once they caught up, gets a few events
    // a page, not 100 (a full page of complete orders is ~20 times the bytes).
    feed: await get(`${API}/events?limit=${FEED_PAGE}`),
    ack: await get(`${API}/orders/${id}/ack`, { ...t.auth, 'idempotency-key': t.key() }, 'POST', { external_id: `ERP-${t.tag}-bare` }),
    status: await get(`${API}/orders/${id}/status`, { ...t.auth, 'idempotency-key': t.key() }, 'POST', { status: 'accepted', estimated_minutes: 30 }),
    simulate: await get('/_emulator/orders', t.adminHeaders, 'POST', { store_id: t.storeId }),
  };
  t.staged.push({ id, next: 'ready' });
  const made = JSON.parse(bodies.simulate).data.id;
  t.known.push(made);
  t.fresh.push(made);
  t.deliveries?.sent(made, 0, false);
  return bodies;
}

/** Starts the bare server in a child process; resolves with `{ url, pid, child }`. */
export async function startBare(bodies) {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-bare-'));
  removeOnExit(dir);
  const file = join(dir, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const { ready, child } = await spawnReady([import.meta.filename, file], {
    isReady: (line) => line?.event === 'ready',
    name: 'bare fastify',
  });
  return { ...ready, child };
}

async function serve(file) {
  const bodies = JSON.parse(readFileSync(file, 'utf8'));
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  const json = (body, code = 200) => (_request, reply) => reply.code(code).type('application/json; charset=utf-8').send(body);
  app.get(`${API}/orders/:id`, json(bodies.order));
  app.get(`${API}/catalog/products`, json(bodies.products));
  app.get(`${API}/events`, json(bodies.feed));
  app.post(`${API}/orders/:id/ack`, json(bodies.ack));
  app.post(`${API}/orders/:id/status`, json(bodies.status));
  app.post('/_emulator/orders', json(bodies.simulate, 201));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const stop = () => app.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ event: 'ready', url: `http://127.0.0.1:${app.server.address().port}`, pid: process.pid })}\n`);
}

if (process.argv[1] === import.meta.filename) await serve(process.argv[2]);
