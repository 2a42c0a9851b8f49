import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.js';
import { openPool as nodeHttpPool } from '../../src/client/pool-node-http.js';
import { openPool as undiciPool } from '../../src/client/pool.js';
import { Transport, type TransportOptions } from '../../src/client/transport.js';
import { FAST_BACKOFF, sendJson, startFakeServer, type FakeServer } from '../helpers/client.js';

// The client's two connection pools do the same: undici's (the library's) and Node's own HTTP client
// (the CLI's build puts it in place of the first, tsup.config.ts `cliPool`). Each case runs the
// transport on both, against a hand-made server: what is sent, keep-alive, and every failure the
// transport tells apart (network error with the socket's code, timeout, abort, a request refused).
const POOLS = [
  ['undici (the library)', undiciPool],
  ['node:http (the CLI)', nodeHttpPool],
] as const;

let fake: FakeServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await fake?.close();
  transport = undefined;
  fake = undefined;
});

describe.each(POOLS)('the transport on %s', (_name, openPool) => {
  const open = (baseUrl: string, options: Partial<TransportOptions> = {}) =>
    (transport = new Transport({ baseUrl, authorization: () => 'Bearer k', maxRetries: 0, userAgent: 'ua/1', backoff: FAST_BACKOFF, openPool, ...options }));

  it('sends the method, headers and JSON body, and reads status, lower-case headers and body', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 201, { data: { ok: true } }, { 'X-Extra': 'yes' }));
    const t = open(fake.url);
    const result = await t.send({ endpointId: 'x', method: 'POST', path: '/v1/things?a=1', body: { name: 'Lomitería' }, idempotencyKey: 'key-1' });
    expect(result).toMatchObject({ status: 201, body: { data: { ok: true } }, requestId: 'req_fake', attempts: 1 });
    expect(result.headers['x-extra']).toBe('yes');
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/things?a=1' });
    expect(sent!.headers).toMatchObject({
      authorization: 'Bearer k', 'user-agent': 'ua/1', accept: 'application/json', 'content-type': 'application/json; charset=utf-8',
      'idempotency-key': 'key-1', 'content-length': String(Buffer.byteLength(JSON.stringify({ name: 'Lomitería' }))),
    });
    const get = await t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null });
    expect(get.status).toBe(201);
    expect(fake.requests[1]!.headers['content-type']).toBeUndefined();
  });

  it('reuses one keep-alive connection for sequential calls, and close() ends it', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: {} }));
    const t = open(fake.url);
    for (let i = 0; i < 5; i++) await t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null });
    expect(fake.connections).toBe(1);
    await t.close();
    await expect(t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null })).rejects.toMatchObject({ code: 'client_closed' });
  });

  it('sends through a dispatcher given by the caller and leaves it open', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: { n: 1 } }));
    const dispatcher = new Agent();
    const t = open(fake.url, { dispatcher });
    await t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null });
    await t.close();
    const again = open(fake.url, { dispatcher });
    await expect(again.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null })).resolves.toMatchObject({ body: { data: { n: 1 } } });
    expect(fake.connections).toBe(1);
    await dispatcher.close();
  });

  it('takes a dropped connection for a network failure, and retries it', async () => {
    fake = await startFakeServer((req, res, n) => (n < 2 ? req.socket.destroy() : sendJson(res, 200, { data: {} })));
    const t = open(fake.url);
    const error = await t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toMatch(/^GET \/v1\/me failed: /);
    await expect(t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null, maxRetries: 1 })).resolves.toMatchObject({ status: 200, attempts: 2 });
  });

  it('rejects a response cut in its body as a network failure', async () => {
    fake = await startFakeServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"data":');
      setImmediate(() => req.socket.destroy());
    });
    const error = await open(fake.url).send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toMatch(/^GET \/v1\/me failed: /);
  });

  it('reports a refused loopback port as ECONNREFUSED with its address (not retried)', async () => {
    fake = await startFakeServer(() => {});
    const url = fake.url;
    await fake.close();
    fake = undefined;
    const retries: unknown[] = [];
    const error = await open(url, { maxRetries: 3, onRetry: (i) => retries.push(i) }).send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null }).catch((e) => e);
    expect(error).toMatchObject({ status: 0, code: 'network_error', message: 'GET /v1/me failed: ECONNREFUSED' });
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED', address: '127.0.0.1' });
    expect(retries).toEqual([]);
  });

  it('ends an attempt with no answer within timeoutMs with the same message', async () => {
    fake = await startFakeServer(() => {});
    const error = await open(fake.url, { timeoutMs: 100 }).send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null }).catch((e) => e);
    // The cause's name: a DOMException's `code` is a legacy number (23), which said nothing.
    expect(error).toMatchObject({ status: 0, code: 'network_error', message: 'No answer within 100 ms from GET /v1/me: TimeoutError' });
    expect(error.cause).toMatchObject({ name: 'TimeoutError' });
  });

  it('rejects with the caller\'s reason when the caller aborts, during the answer too', async () => {
    fake = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":');
    });
    const controller = new AbortController();
    const t = open(fake.url, { maxRetries: 3 });
    const pending = t.send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null, signal: controller.signal, onResponse: () => undefined });
    await expect.poll(() => fake!.requests.length).toBe(1);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses a header value with a line break as invalid_request, sending nothing', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: {} }));
    const error = await open(fake.url, { userAgent: 'bad\nagent', maxRetries: 2 }).send({ endpointId: 'x', method: 'GET', path: '/v1/me', idempotencyKey: null }).catch((e) => e);
    expect(error).toMatchObject({ status: 0, code: 'invalid_request', message: 'GET /v1/me: the request is invalid' });
    expect(fake.requests).toHaveLength(0);
  });
});
