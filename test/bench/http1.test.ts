import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchLib, withBenchClient } from '../helpers/bench-client.js';
import { waitFor } from '../helpers/wait.js';

// bench/mixed.mjs talks to the emulator through its own HTTP/1.1 client (bench/lib/http1.mjs), for
// its CPU: it must send what undici sent and read every answer the emulator may give.
const listen = (server: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => unknown }) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

describe('bench/lib/http1.mjs', () => {
  let server: Server;
  let url: string;
  const big = JSON.stringify({ data: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `Producto ${i} "ñ"` })), next_cursor: 'abc' });
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const echo = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (req.url === '/chunked') {
          // No content-length: node sends it chunked, in pieces.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(big.slice(0, 1000));
          setImmediate(() => res.end(big.slice(1000)));
        } else if (req.url === '/empty') res.writeHead(204).end();
        else if (req.url === '/close') res.writeHead(200, { connection: 'close', 'content-length': Buffer.byteLength(echo) }).end(echo);
        else res.writeHead(req.url === '/conflict' ? 409 : 200, { 'content-length': Buffer.byteLength(echo) }).end(echo);
      });
    });
    // The emulator closes idle keep-alive connections: the client must not send on one it closed.
    server.keepAliveTimeout = 200;
    url = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('writes the bytes undici writes for the same requests', async () => {
    const { Origin } = await benchLib('http1.mjs');
    const { exchange } = await benchLib('mixed-workload.mjs');
    const seen: string[] = [];
    const raw = createTcpServer((socket) => socket.on('data', (d) => {
      seen.push(d.toString('latin1'));
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
    }));
    const rawUrl = await listen(raw);
    const sent = async (pool: unknown) => {
      seen.length = 0;
      await exchange(pool, 'GET', '/sandbox/v1/orders/ord_1?x=1', { authorization: 'Bearer t' }, undefined, { read: 'none' });
      await exchange(pool, 'POST', '/sandbox/v1/orders/ord_1/ack', { authorization: 'Bearer t', 'idempotency-key': 'k' }, { external_id: 'ERP-ñ', external_number: '1' });
      return seen.join('');
    };
    const undici = new Pool(rawUrl, { connections: 1, pipelining: 1 });
    const ours = new Origin(rawUrl, { connections: 1 });
    try {
      const expected = await sent(undici);
      expect(expected).toContain(Buffer.from('content-length: 46\r\n\r\n{"external_id":"ERP-ñ"').toString('latin1'));
      expect(await sent(ours)).toBe(expected);
    } finally {
      await undici.close();
      await ours.close();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it('reads content-length, chunked and empty answers, keeps connections alive and survives the server closing them', () =>
    withBenchClient(url, async ({ origin, exchange, ListPageReader }) => {
      const echo = await exchange(origin, 'POST', '/echo?a=b', { 'idempotency-key': 'k' }, { a: 'ñ' });
      expect(JSON.parse(echo.text)).toMatchObject({ method: 'POST', url: '/echo?a=b', headers: { 'idempotency-key': 'k', 'content-type': 'application/json' }, body: '{"a":"ñ"}' });
      expect(await exchange(origin, 'GET', '/chunked', {})).toEqual({ status: 200, ok: true, text: big });
      expect(await exchange(origin, 'GET', '/chunked', {}, undefined, { read: ListPageReader })).toEqual({ status: 200, ok: true, page: { items: 2000, nextCursor: 'abc' } });
      expect(await exchange(origin, 'GET', '/empty', {}, undefined, { read: 'none' })).toEqual({ status: 204, ok: true });
      expect(await exchange(origin, 'GET', '/close', {}, undefined, { read: 'none' })).toEqual({ status: 200, ok: true });
      expect(await exchange(origin, 'POST', '/conflict', {}, {}, { read: 'none' })).toMatchObject({ status: 409, ok: false });
      // Many at once over 2 connections: each answer to its own request.
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => exchange(origin, 'GET', `/n/${i}`, {})));
      expect(many.map((r: { text: string }) => JSON.parse(r.text).url)).toEqual(Array.from({ length: 20 }, (_, i) => `/n/${i}`));
      // The server closes the idle connections (keepAliveTimeout): the next requests open new ones.
      await waitFor(() => origin.open === 0, () => `${origin.open} connection(s) still open after the server's keep-alive timeout`);
      expect((await exchange(origin, 'GET', '/again', {}, undefined, { read: 'none' })).status).toBe(200);
    }));

  it('fails a request whose answer does not come in time, as undici\'s timeouts did', async () => {
    const { Origin } = await benchLib('http1.mjs');
    const { exchange } = await benchLib('mixed-workload.mjs');
    // Takes the request and never answers it (a hung server, its socket open).
    const hung = createTcpServer(() => undefined);
    const hungUrl = await listen(hung);
    const origin = new Origin(hungUrl, { connections: 1, answerTimeoutMs: 50 });
    try {
      const answer = await exchange(origin, 'GET', '/sandbox/v1/orders/ord_1', {}, undefined, { read: 'none' });
      expect(answer.status).toBe(0);
      expect(answer.code).toBe('UND_ERR_HEADERS_TIMEOUT');
    } finally {
      await origin.close();
      hung.close();
    }
  });

  it('answers a request it cannot send with status 0 and the network\'s code', async () => {
    const { Origin } = await benchLib('http1.mjs');
    const { exchange } = await benchLib('mixed-workload.mjs');
    const gone = createTcpServer();
    const goneUrl = await listen(gone);
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const origin = new Origin(goneUrl, { connections: 1 });
    expect(await exchange(origin, 'GET', '/', {})).toEqual({ status: 0, ok: false, code: 'ECONNREFUSED' });
    await origin.close();
    expect(await exchange(origin, 'GET', '/', {})).toEqual({ status: 0, ok: false, code: 'UND_ERR_CLOSED' });
  });
});
