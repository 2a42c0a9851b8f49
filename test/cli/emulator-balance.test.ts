import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamPool, type Upstream } from '../../src/cli/commands/emulator/balance-upstreams.js';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';
import { until } from '../helpers/proxy.js';

// issue 17, item 4: `merchant-kit emulator balance`, the round-robin balancer of docs/team-sandbox.md,
// over real HTTP in front of two emulators (each in memory: the mechanics do not need a shared database).

let a: TestEmulator;
let b: TestEmulator;
const running: CliProcess[] = [];

interface Balancer {
  cli: CliProcess;
  url: string;
  ready: { event: string; url: string; upstreams: string[]; pid: number };
}

async function balance(to: string[], args: string[] = []): Promise<Balancer> {
  const cli = runCli(['emulator', 'balance', ...to.flatMap((u) => ['--to', u]), '--port', '0', '--json', ...args]);
  running.push(cli);
  const line = await cli.firstLine.catch(() => {
    throw new Error(`the balancer did not start: ${cli.stderr()}`);
  });
  const ready = JSON.parse(line);
  return { cli, url: ready.url, ready };
}

/** A loopback port where nothing listens: connections to it are refused. */
async function deadPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

/** The paths of the API requests an emulator answered (its own request log, read directly). */
async function pathsSeenBy(emu: TestEmulator): Promise<string[]> {
  const res = await request(`${emu.running.admin_url}/logs?limit=1000&wait_ms=0`, 'GET');
  return res.body.data.entries.map((e: { path: string }) => e.path);
}

beforeAll(async () => {
  await ensureBuilt();
  // Limits off: the probes below answer 401 by the dozen, which would count as failed logins.
  a = await startTestEmulator({ limits: false });
  b = await startTestEmulator({ limits: false });
  await seedMenu(a);
  await seedMenu(b);
}, 300_000);

afterAll(async () => {
  for (const cli of running) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
  await a?.close();
  await b?.close();
});

describe('merchant-kit emulator balance', () => {
  it('prints one ready line with its address, the upstreams and its pid', async () => {
    const { cli, ready } = await balance([a.url, b.url]);
    expect(ready).toEqual({ event: 'ready', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), upstreams: [a.url, b.url], pid: cli.child.pid });
  });

  it('sends each request to the next process in turn', async () => {
    const { url } = await balance([a.url, b.url]);
    for (let i = 0; i < 6; i++) expect((await request(`${url}/sandbox/v1/orders/probe-${i}`, 'GET')).status).toBe(401);
    const probes = async (emu: TestEmulator) => (await pathsSeenBy(emu)).filter((p) => p.includes('/probe-'));
    expect(await probes(a)).toEqual(['/sandbox/v1/orders/probe-0', '/sandbox/v1/orders/probe-2', '/sandbox/v1/orders/probe-4']);
    expect(await probes(b)).toEqual(['/sandbox/v1/orders/probe-1', '/sandbox/v1/orders/probe-3', '/sandbox/v1/orders/probe-5']);
  });

  it('passes the panel\'s Server-Sent Events as they come, without waiting for the stream to end', async () => {
    const { url } = await balance([a.url, b.url]);
    // The first request of a new balancer goes to the first process.
    const received: string[] = [];
    let status = 0;
    let type = '';
    const stream = httpRequest(`${url}/_emulator/panel/events`, (res) => {
      status = res.statusCode ?? 0;
      type = String(res.headers['content-type']);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => received.push(chunk));
    });
    stream.end();
    try {
      await until(() => (received.join('').includes('event: hello') ? true : undefined), () => `the hello event; got ${JSON.stringify(received)}`, 20_000);
      expect(status).toBe(200);
      expect(type).toContain('text/event-stream');
      const order = await simulate(a);
      const change = await until(() => /event: change\ndata: (.*)\n/.exec(received.join(''))?.[1], () => `a change event; got ${JSON.stringify(received)}`, 20_000);
      expect(JSON.parse(change)).toMatchObject({ store_id: a.test.store_id, kinds: expect.arrayContaining(['orders']) });
      expect(order.id).toMatch(/^ord_/);
    } finally {
      stream.destroy();
    }
  }, 300_000);

  it('skips a process that refuses the connection, sending the body to the next one once', async () => {
    const dead = await deadPort();
    const { url, cli } = await balance([dead, a.url]);
    const before = (await a.control('GET', `/panel/stores/${a.test.store_id}/orders?limit=500`)).body.data.length;
    // The first request's turn is the dead process: refused before any of the body was sent, so retried.
    const created = await request(`${url}/_emulator/orders`, 'POST', { body: { store_id: a.test.store_id } });
    expect(created.status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await request(`${url}/_emulator/health`, 'GET')).status).toBe(200);
    const after = (await a.control('GET', `/panel/stores/${a.test.store_id}/orders?limit=500`)).body.data.length;
    expect(after).toBe(before + 1);
    await until(() => (cli.stderr().includes(`${dead} is down (ECONNREFUSED)`) ? true : undefined), () => cli.stderr(), 20_000);
  });

  it('answers 502 upstream_unavailable in the spec\'s error body when no process answers', async () => {
    const { url } = await balance([await deadPort(), await deadPort()]);
    const res = await request(`${url}/sandbox/v1/me`, 'GET', { credential: a.test.credential });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ error: { code: 'upstream_unavailable', message: expect.any(String), request_id: expect.stringMatching(/^req_/) } });
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
  });

  it('passes a body of several megabytes whole (a catalog batch of 4 MB)', async () => {
    const { url } = await balance([a.url, b.url]);
    const name = (i: number, j: number) => `Opción ${i}-${j} `.padEnd(120, 'x');
    const product = (p: number) => ({
      op: 'upsert_product', external_id: `BIG-${p}`,
      data: {
        name: `Producto grande ${p}`, category_external_id: 'CAT-BURGER', price: '1000',
        option_groups: Array.from({ length: 20 }, (_, i) => ({
          external_id: `B${p}-G${i}`, name: `Grupo ${i}`, min_select: 0, max_select: 1,
          options: Array.from({ length: 50 }, (_, j) => ({ external_id: `B${p}-O${i}-${j}`, name: name(i, j), price: '100' })),
        })),
      },
    });
    const body = JSON.stringify({ operations: Array.from({ length: 24 }, (_, p) => product(p)) });
    expect(body.length).toBeGreaterThan(4_000_000);
    // The first request of a new balancer goes to the first process, whose credential this is.
    const res = await request(`${url}/sandbox/v1/catalog/batch`, 'POST', {
      rawBody: body, credential: a.test.credential, idempotencyKey: `big-${Date.now()}`, headers: { 'content-type': 'application/json' },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.data.summary).toEqual({ total: 24, succeeded: 24, failed: 0 });
    const listed = await a.api('GET', '/catalog/products?limit=200');
    const last = listed.body.data.find((p: { external_id: string }) => p.external_id === 'BIG-23');
    expect(last.option_groups).toHaveLength(20);
    expect(last.option_groups[19].options[49].name).toBe(name(19, 49));
  }, 300_000);

  it('keeps the Host header as the client sent it (the emulator judges it: loopback names pass, others are refused)', async () => {
    const { url } = await balance([a.url, b.url]);
    const port = new URL(url).port;
    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${url}/_emulator/health`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get(`localhost:${port}`)).toBe(200);
    expect(await get(`localhost:${port}`)).toBe(200);
    // Rewritten to the upstream's own address, this name would pass; kept, both processes refuse it.
    expect(await get(`attacker.example:${port}`)).toBe(403);
    expect(await get(`attacker.example:${port}`)).toBe(403);
  });

  it('forwards the headers as sent (Host, Authorization) but the hop-by-hop ones, and adds the client to X-Forwarded-For', async () => {
    let seen: IncomingHttpHeaders = {};
    const echo = createHttpServer((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'echo', connection: 'keep-alive' }).end('ok');
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const { url } = await balance([`http://127.0.0.1:${(echo.address() as AddressInfo).port}`]);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${url}/sandbox/v1/me`, {
          headers: { host: 'sandbox.example:4010', authorization: 'Bearer svk_test_a.svs_test_b', connection: 'keep-alive, x-hop', 'x-hop': 'drop me', 'x-forwarded-for': '203.0.113.7' },
        }, (res) => {
          expect(res.headers['x-upstream']).toBe('echo');
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
      expect(seen.host).toBe('sandbox.example:4010');
      expect(seen.authorization).toBe('Bearer svk_test_a.svs_test_b');
      expect(seen['x-hop']).toBeUndefined();
      expect(seen['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
    } finally {
      echo.closeAllConnections();
      await new Promise((r) => echo.close(r));
    }
  });

  it('never logs the Authorization header or a query string, even with --verbose', async () => {
    const { url, cli } = await balance([a.url, b.url], ['--verbose']);
    await request(`${url}/sandbox/v1/me?key=${encodeURIComponent(a.test.credential)}`, 'GET', { credential: a.test.credential });
    await until(() => (cli.stderr().includes('GET /sandbox/v1/me →') ? true : undefined), () => cli.stderr(), 20_000);
    const secret = a.test.credential.split('.')[1]!;
    expect(cli.stderr()).not.toContain(secret);
    expect(cli.stderr()).not.toContain('key=');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s with exit code 0', async (signal) => {
    const { cli } = await balance([a.url, b.url]);
    cli.child.kill(signal);
    expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
  });

  it.each([
    [['--to', 'https://127.0.0.1:4011'], 'http://'],
    [['--to', 'http://127.0.0.1:4011/sandbox/v1'], 'without a path'],
    [['--to', 'http://user:pw@127.0.0.1:4011'], 'no user or password'],
    [['--to', 'http://127.0.0.1:4011', '--to', 'http://127.0.0.1:4011'], 'twice'],
    [[], '--to http://HOST:PORT'],
  ])('refuses %j with exit code 2 and one clear line', async (args, message) => {
    const cli = runCli(['emulator', 'balance', ...args, '--port', '0']);
    const exit = await cli.exited;
    expect(exit.code).toBe(2);
    expect(cli.stderr()).toContain(message);
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
  });

  it('on a non-loopback address, refuses to open an emulator that serves its control API without a token', async () => {
    const cli = runCli(['emulator', 'balance', '--to', a.url, '--host', '0.0.0.0', '--port', '0']);
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toContain(`${a.url} serves its control API without a token`);
  });

  it('on a non-loopback address, starts in front of emulators that ask for a token', async () => {
    const guarded = await startTestEmulator({ adminToken: 'team-admin-token-0123456789' });
    try {
      const { ready } = await balance([guarded.url], ['--host', '0.0.0.0']);
      const port = new URL(ready.url).port;
      expect((await request(`http://127.0.0.1:${port}/_emulator/health`, 'GET')).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });
});

describe('the balancer\'s turn', () => {
  const upstream = (origin: string) => ({ origin }) as Upstream;
  const [x, y, z] = ['x', 'y', 'z'].map(upstream) as [Upstream, Upstream, Upstream];

  it('starts each request one process further', () => {
    const pool = new UpstreamPool([x, y, z], 3_000, () => 0);
    expect([pool.order()[0], pool.order()[0], pool.order()[0], pool.order()[0]]).toEqual([x, y, z, x]);
  });

  it('puts a process marked down last for the down time, then back in turn', () => {
    let now = 0;
    const pool = new UpstreamPool([x, y, z], 3_000, () => now);
    expect(pool.markDown(x)).toBe(true);
    expect(pool.markDown(x)).toBe(false);
    expect(pool.order()).toEqual([y, z, x]);
    expect(pool.order()).toEqual([y, z, x]);
    now = 3_001;
    expect(pool.order()).toEqual([z, x, y]);
    expect(pool.markUp(x)).toBe(true);
    expect(pool.markUp(x)).toBe(false);
  });
});
