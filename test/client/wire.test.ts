import { getEventListeners } from 'node:events';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, EmulatorControl, MerchantClient, type ResponseInfo, type RetryInfo } from '../../src/client/index.js';
import { FAST_BACKOFF, sendJson, startFakeServer, type FakeServer } from '../helpers/client.js';

// What only a hand-made server can show: fields the spec does not have yet, connection reuse,
// and the credential staying out of every printable thing.
const CREDENTIAL = 'svk_test_01KEYIDPART.svs_test_SuperSecretValue123';
let fake: FakeServer | undefined;
let client: MerchantClient | undefined;
afterEach(async () => {
  await client?.close();
  await fake?.close();
  client = undefined;
  fake = undefined;
});

describe('unknown response fields', () => {
  it('ignores fields the server added, in the resource and in the envelope', async () => {
    fake = await startFakeServer((req, res) => {
      if (req.url === '/v1/orders?status=pending%2Caccepted&limit=2') {
        return sendJson(res, 200, { data: [{ id: 'ord_1', status: 'pending', loyalty_points: 12 }], next_cursor: null, total_hint: 1 });
      }
      sendJson(res, 200, { data: { id: 'str_1', name: 'Lomitería', brand_new_field: { nested: true } }, meta: { v: 2 } });
    });
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL });
    const store = await client.store.get();
    expect(store).toMatchObject({ id: 'str_1', name: 'Lomitería' });
    const orders = await client.orders.list({ status: ['pending', 'accepted'], limit: 2 }).all();
    expect(orders.map((o) => o.id)).toEqual(['ord_1']);
    expect(fake.requests.map((r) => r.url)).toContain('/v1/orders?status=pending%2Caccepted&limit=2');
  });

  it('rejects a 2xx body that is not JSON with ApiError invalid_response, without retrying', async () => {
    fake = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'x-request-id': 'req_html' });
      res.end('<html>captive portal</html>');
    });
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL, backoff: FAST_BACKOFF });
    const error = await client.me().catch((e) => e);
    expect(error).toMatchObject({ status: 200, code: 'invalid_response', requestId: 'req_html' });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('connections', () => {
  it('reuses one keep-alive connection for twenty sequential calls', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: { ok: true } }));
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL });
    for (let i = 0; i < 20; i++) await client.me();
    expect(fake.requests).toHaveLength(20);
    expect(fake.connections).toBe(1);
  });

  it('reuses the parallel calls\' connections for the next parallel calls', async () => {
    fake = await startFakeServer((_req, res) => setTimeout(() => sendJson(res, 200, { data: { ok: true } }), 20));
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL });
    await Promise.all(Array.from({ length: 4 }, () => client!.me()));
    await Promise.all(Array.from({ length: 4 }, () => client!.me()));
    expect(fake.requests).toHaveLength(8);
    expect(fake.connections).toBe(4);
  });

  it('opens new connections for a new client after close()', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: { ok: true } }));
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL });
    await client.me();
    await client.close();
    await expect(client.me()).rejects.toMatchObject({ status: 0, code: 'client_closed' });
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL });
    await client.me();
    expect(fake.connections).toBe(2);
  });

  it('leaves no listener on a long-lived caller signal after its calls end', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: { ok: true } }));
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL });
    const lifetime = new AbortController();
    for (let i = 0; i < 30; i++) await client.me({ signal: lifetime.signal });
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0);
  });

  it('sends the credential as a Bearer header and JSON only with a body', async () => {
    fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: { ok: true } }));
    client = new MerchantClient({ baseUrl: `${fake.url}/v1/`, credential: CREDENTIAL, userAgent: 'erp-sync/2.1' });
    await client.me();
    await client.webhook.test();
    await client.store.patch({ accepting_orders: true });
    const [me, test, patch] = fake.requests;
    expect(me!.headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect(me!.headers['user-agent']).toBe('erp-sync/2.1');
    expect(me!.url).toBe('/v1/me');
    expect(me!.headers['content-type']).toBeUndefined();
    expect(test!.headers['content-type']).toBeUndefined();
    expect(test!.headers['idempotency-key']).toMatch(/^mk_/);
    expect(patch!.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('the credential is never shown', () => {
  const secretPart = 'SuperSecretValue123';

  it('is not in JSON.stringify(client) nor util.inspect(client)', () => {
    client = new MerchantClient({ baseUrl: 'http://127.0.0.1:9/v1', credential: CREDENTIAL });
    const json = JSON.stringify(client);
    expect(json).not.toContain(secretPart);
    expect(JSON.parse(json)).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', environment: 'test', credential: '[redacted]' });
    for (const text of [inspect(client), inspect(client, { showHidden: true, depth: Infinity }), String(client), `${Object.values(client)}`]) {
      expect(text).not.toContain(secretPart);
    }
    expect(Object.keys(client)).not.toContain('credential');
  });

  it('is not in an error message, its stack, its JSON or its inspection', async () => {
    fake = await startFakeServer((req, res, n) => {
      if (n === 0) return req.socket.destroy();
      sendJson(res, 401, { error: { code: 'unauthenticated', message: 'Credencial ausente, inválida, vencida o revocada.', request_id: 'req_401' } });
    });
    client = new MerchantClient({ baseUrl: `${fake.url}/v1`, credential: CREDENTIAL, backoff: FAST_BACKOFF });
    const network = await new MerchantClient({ baseUrl: 'http://127.0.0.1:9/v1', credential: CREDENTIAL, maxRetries: 0 }).me().catch((e) => e);
    const unauthorized = await client.me().catch((e) => e);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthenticated', requestId: 'req_401' });
    for (const error of [network, unauthorized] as ApiError[]) {
      expect(error).toBeInstanceOf(ApiError);
      for (const text of [error.message, error.stack ?? '', JSON.stringify(error), inspect(error, { showHidden: true, depth: Infinity })]) {
        expect(text).not.toContain(secretPart);
      }
    }
  });

  it('is not in what the hooks log (onResponse, onRetry)', async () => {
    fake = await startFakeServer((_req, res, n) => sendJson(res, n === 0 ? 503 : 200, n === 0 ? { error: { code: 'maintenance', message: 'm', request_id: 'req_1' } } : { data: {} }));
    const lines: string[] = [];
    client = new MerchantClient({
      baseUrl: `${fake.url}/v1`, credential: CREDENTIAL, backoff: FAST_BACKOFF,
      onResponse: (info: ResponseInfo) => lines.push(JSON.stringify(info)),
      onRetry: (info: RetryInfo) => lines.push(JSON.stringify(info), inspect(info, { depth: Infinity })),
    });
    await client.me();
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).not.toContain(secretPart);
  });

  it('keeps the admin token of EmulatorControl out of JSON and inspection', () => {
    const control = new EmulatorControl('http://127.0.0.1:9', { adminToken: 'admin-token-very-secret' });
    expect(JSON.stringify(control)).not.toContain('very-secret');
    expect(inspect(control, { showHidden: true, depth: Infinity })).not.toContain('very-secret');
    void control.close();
  });
});
