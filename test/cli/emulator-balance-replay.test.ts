import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startBalancer, type RunningBalancer } from '../../src/cli/commands/emulator/balance-server.js';

// Issue 24 (low): `emulator balance` and what it may send again or drop.
// - A bodiless POST that a process had received before its kept-alive connection was reset was sent
//   again to the next process (`rotate-secret`, `reset`, `webhook/test` applied twice). Only GET,
//   HEAD and a request with an Idempotency-Key (the API answers it once) may be sent again.
// - Headers named by `Connection` were dropped, `Host` and `Origin` included: a client could take
//   away what the emulator judges a request by (its host check, its cross-site check).

interface Upstream {
  server: Server;
  origin: string;
  /** Requests it read, in order: method, path and headers. */
  seen: { method: string; url: string; headers: IncomingHttpHeaders }[];
}

const servers: Server[] = [];
let balancer: RunningBalancer | undefined;
afterEach(async () => {
  await balancer?.close();
  balancer = undefined;
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/**
 * A process that answers the first request on each connection, and resets the connection on the
 * second one after reading it whole: as a process that died, or closed an idle connection, right
 * after the request reached it.
 */
async function upstream(resetSecond: boolean): Promise<Upstream> {
  const seen: Upstream['seen'] = [];
  const perSocket = new WeakMap<object, number>();
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (resetSecond && n === 2) return void req.socket.resetAndDestroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function send(url: string, method: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { connection: 'close', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Two processes in turn; the first resets its kept-alive connection on its second request. The
 * third request goes to the first process on its reused connection: the one that may be sent again.
 */
async function thirdRequestMeetsAReset(method: string, path: string, headers: Record<string, string> = {}) {
  const [one, two] = [await upstream(true), await upstream(false)];
  balancer = await startBalancer({ to: [one.origin, two.origin], port: 0, host: '127.0.0.1' });
  expect(await send(`${balancer.url}/_emulator/health`, 'GET')).toBe(200);
  expect(await send(`${balancer.url}/_emulator/health`, 'GET')).toBe(200);
  const status = await send(`${balancer.url}${path}`, method, headers);
  const reached = [...one.seen, ...two.seen].filter((r) => r.url === path).length;
  return { status, reached };
}

describe('emulator balance after a connection reset', () => {
  it.each([
    ['POST', '/sandbox/v1/webhook/rotate-secret'],
    ['POST', '/_emulator/reset'],
    ['DELETE', '/_emulator/faults'],
  ])('never sends a bodiless %s %s again: 502, received once', async (method, path) => {
    const { status, reached } = await thirdRequestMeetsAReset(method, path, { 'content-type': 'application/json' });
    expect(reached).toBe(1);
    expect(status).toBe(502);
  });

  it.each(['GET', 'HEAD'])('sends a %s again to the next process', async (method) => {
    const { status, reached } = await thirdRequestMeetsAReset(method, '/sandbox/v1/orders');
    expect(status).toBe(200);
    expect(reached).toBe(2);
  });

  it('sends a POST with an Idempotency-Key again (the API answers one key once)', async () => {
    const { status, reached } = await thirdRequestMeetsAReset('POST', '/sandbox/v1/webhook/test', { 'idempotency-key': 'balance-replay-1' });
    expect(status).toBe(200);
    expect(reached).toBe(2);
  });
});

describe('emulator balance and the Connection header', () => {
  it('never drops Host, Origin or Sec-Fetch-Site, whatever Connection names', async () => {
    const one = await upstream(false);
    balancer = await startBalancer({ to: [one.origin], port: 0, host: '127.0.0.1' });
    const status = await send(`${balancer.url}/_emulator/reset`, 'POST', {
      connection: 'close, host, origin, sec-fetch-site, x-forwarded-for, x-hop',
      host: 'sandbox.example:4010',
      origin: 'https://attacker.example',
      'sec-fetch-site': 'cross-site',
      'x-hop': 'drop me',
    });
    expect(status).toBe(200);
    const { headers } = one.seen[0]!;
    expect(headers.host).toBe('sandbox.example:4010');
    expect(headers.origin).toBe('https://attacker.example');
    expect(headers['sec-fetch-site']).toBe('cross-site');
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-hop']).toBeUndefined();
  });
});
