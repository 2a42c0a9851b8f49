import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, EmulatorControl, type RetryInfo } from '../../src/client/index.js';
import { MerchantClient } from '../../src/client/index.js';
import { FAST_BACKOFF, sendJson, startClientRig, startFakeServer, type ClientRig } from '../helpers/client.js';
import { loadFactor, realTimePassed } from '../helpers/wait.js';

// spec: Errors, retry guidance — retry only after 429, 500, 502, 503, 504 or a network failure, with
// backoff and Retry-After, the same Idempotency-Key on every retry; never repeat another 4xx.
let rig: ClientRig;
beforeAll(async () => {
  rig = await startClientRig();
  await rig.client.catalog.categories.put('CAT-1', { name: 'Bebidas' });
  await rig.client.catalog.products.put('BEB-1', { name: 'Agua', category_external_id: 'CAT-1', price: '5000' });
});
afterEach(async () => {
  await rig.control.clearFaults();
  rig.sent.length = 0;
});
afterAll(async () => rig?.close());

const newOrder = () => rig.control.simulateOrder({ store_id: rig.emu.test.store_id, scenario: 'pickup_invoice' });
const sentTo = (suffix: string) => rig.sent.filter((s) => s.path.endsWith(suffix));

describe('retries with emulator faults', () => {
  it('retries a 503 with the same Idempotency-Key and changes the status once', async () => {
    const order = await newOrder();
    await rig.control.addFault({ method: 'POST', path: '/sandbox/v1/orders/*/status', status: 503, retry_after: 0, times: 2 });
    const changed = await rig.client.orders.setStatus(order.id, { status: 'accepted' });
    expect(changed.status).toBe('accepted');
    const attempts = sentTo(`/orders/${order.id}/status`);
    expect(attempts).toHaveLength(3);
    const keys = new Set(attempts.map((a) => a.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[A-Za-z0-9._:-]{8,100}$/);
    const history = (await rig.client.orders.get(order.id)).status_history.filter((h) => h.status === 'accepted');
    expect(history).toHaveLength(1);
  });

  it('honours Retry-After of a 429 and keeps the caller-given key', async () => {
    const order = await newOrder();
    const waits: number[] = [];
    const retries: RetryInfo[] = [];
    const client = rig.makeClient({ sleep: async (ms) => void waits.push(ms), onRetry: (info) => retries.push(info), dispatcher: undefined });
    await rig.control.addFault({ method: 'POST', path: '/sandbox/v1/orders/*/ack', status: 429, retry_after: 3, times: 1 });
    const acked = await client.orders.ack(order.id, { external_id: 'ERP-429' }, { idempotencyKey: 'my-own-key-429' });
    expect(acked.integration.ack_status).toBe('acknowledged');
    expect(waits).toEqual([3000]);
    expect(retries[0]).toMatchObject({ retry: 1, delayMs: 3000, idempotencyKey: 'my-own-key-429' });
    expect(retries[0]!.error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 3 });
    const history = (await rig.client.orders.get(order.id)).integration;
    expect(history.external_id).toBe('ERP-429');
  });

  it('retries a timed-out status change with the same key and the order changes once', async () => {
    // The first attempt is held by the emulator twice the client's timeout and then still runs; the
    // client gave up and sent the retry, which ran first. The late original finds the key already
    // used. The timeout grows with the machine's load, so that the retry itself never runs out of it.
    const timeoutMs = Math.round(500 * loadFactor());
    const order = await newOrder();
    const path = `/sandbox/v1/orders/${order.id}/status`;
    const retries: RetryInfo[] = [];
    const client = rig.makeClient({ timeoutMs, dispatcher: undefined, onRetry: (i) => retries.push(i) });
    const attempts: string[] = [];
    await rig.control.addFault({ method: 'POST', path, delay_ms: 2 * timeoutMs, times: 1 });
    const sentAt = Date.now();
    const changed = await client.orders.setStatus(order.id, { status: 'accepted' }, { onResponse: (i) => attempts.push(`${i.status} ${i.idempotencyKey}`) });
    expect(changed.status).toBe('accepted');
    expect(attempts).toHaveLength(1);
    expect(retries.map((r) => r.error.code)).toEqual(['network_error']);
    expect(attempts[0]).toBe(`200 ${retries[0]!.idempotencyKey}`);
    // The late original is released once its delay is over, and runs unseen (its client is gone, so
    // the request log never gets its answer): the state is read after that moment, and a little more.
    await realTimePassed(sentAt, 2 * timeoutMs + 200);
    const after = await rig.client.orders.get(order.id);
    expect(after.status_history.filter((h) => h.status === 'accepted')).toHaveLength(1);
    const events = await rig.client.events.list({ types: ['order.status_changed'], limit: 200 });
    expect(events.data.filter((e) => (e.data.order as { id: string }).id === order.id)).toHaveLength(1);
  });

  it('waits 1, 2, 4, 8 s with jitter, then rejects with the last 500', async () => {
    const waits: number[] = [];
    const client = rig.makeClient({ sleep: async (ms) => void waits.push(ms), backoff: undefined, dispatcher: undefined });
    await rig.control.addFault({ method: 'GET', path: '/sandbox/v1/store', status: 500, times: 10 });
    const error = await client.store.get().catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error' });
    expect(error.requestId).toMatch(/^req_/);
    expect(waits).toHaveLength(4);
    [1000, 2000, 4000, 8000].forEach((base, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(base * 0.8);
      expect(waits[i]).toBeLessThanOrEqual(base * 1.2);
    });
  });

  it('answers 409 invalid_status_transition and does not retry', async () => {
    const order = await newOrder();
    const error = await rig.client.orders.setStatus(order.id, { status: 'ready' }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'invalid_status_transition', details: { current_status: 'pending' } });
    expect(error.message).toBe('El pedido no puede pasar a ese estado desde su estado actual.');
    expect(sentTo(`/orders/${order.id}/status`)).toHaveLength(1);
  });

  it('answers 422 validation_failed with its details and does not retry', async () => {
    const order = await newOrder();
    const error = await rig.client.orders.ack(order.id, { external_id: 'no spaces allowed' }).catch((e) => e);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(error.fieldIssues[0].field).toBe('external_id');
    expect(sentTo(`/orders/${order.id}/ack`)).toHaveLength(1);
  });

  it('does not retry a 4xx fault such as 409 request_in_progress', async () => {
    const order = await newOrder();
    await rig.control.addFault({ method: 'POST', path: '/sandbox/v1/orders/*/ack', status: 409, code: 'request_in_progress', times: 1 });
    const error = await rig.client.orders.ack(order.id, { external_id: 'ERP-409' }).catch((e) => e);
    expect(error).toMatchObject({ status: 409, code: 'request_in_progress' });
    expect(sentTo(`/orders/${order.id}/ack`)).toHaveLength(1);
  });

  it('sends one attempt with maxRetries: 0', async () => {
    await rig.control.addFault({ method: 'GET', path: '/sandbox/v1/store', status: 503, times: 1 });
    const error = await rig.client.store.get({ maxRetries: 0 }).catch((e) => e);
    expect(error).toMatchObject({ status: 503, code: 'maintenance' });
    expect(sentTo('/store')).toHaveLength(1);
  });
});

// issue 27: under a manual clock the rate-limit minute never ends by itself; retrying waited out
// Retry-After four times (2 min 29 s) for nothing.
describe('a 429 of an emulator with a manual clock (X-Emulator-Clock: manual)', () => {
  const limited = { error: { code: 'rate_limited', message: 'Demasiadas solicitudes.', request_id: 'req_1' } };

  it('rejects at once: no retry, no Retry-After wait', async () => {
    const fake = await startFakeServer((_req, res) => sendJson(res, 429, limited, { 'retry-after': '37', 'x-emulator-clock': 'manual' }));
    const retries: RetryInfo[] = [];
    const client = new MerchantClient({ baseUrl: fake.url + '/sandbox/v1', credential: 'svk_test_a.svs_test_b', onRetry: (i) => retries.push(i) });
    const error = await client.me().catch((e) => e);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 37 });
    expect(fake.requests).toHaveLength(1);
    expect(retries).toEqual([]);
    await client.close();
    await fake.close();
  });

  it('a 429 without the header (a real environment, a system clock) is still retried after Retry-After', async () => {
    const fake = await startFakeServer((_req, res, n) => (n === 0 ? sendJson(res, 429, limited, { 'retry-after': '2' }) : sendJson(res, 200, { data: { id: 'str_1' } })));
    const waits: number[] = [];
    const client = new MerchantClient({ baseUrl: fake.url + '/sandbox/v1', credential: 'svk_test_a.svs_test_b', sleep: async (ms) => void waits.push(ms) });
    expect((await client.store.get()).id).toBe('str_1');
    expect(waits).toEqual([2000]);
    await client.close();
    await fake.close();
  });
});

describe('network failures', () => {
  it('retries a dropped connection and then succeeds', async () => {
    const fake = await startFakeServer((req, res, n) => {
      if (n < 2) return req.socket.destroy();
      sendJson(res, 200, { data: { id: 'str_1' } });
    });
    const client = new MerchantClient({ baseUrl: fake.url + '/v1', credential: 'svk_test_a.svs_test_b', backoff: FAST_BACKOFF });
    const store = await client.store.get();
    expect(store.id).toBe('str_1');
    expect(fake.requests).toHaveLength(3);
    await client.close();
    await fake.close();
  });

  it('rejects at once with ApiError network_error (status 0), without retrying, when nothing listens on this machine', async () => {
    const fake = await startFakeServer(() => {});
    const url = fake.url;
    await fake.close();
    const retries: RetryInfo[] = [];
    const client = new MerchantClient({ baseUrl: url + '/v1', credential: 'svk_test_a.svs_test_b', maxRetries: 4, onRetry: (i) => retries.push(i) });
    const error = await client.me().catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'network_error', isNetworkError: true });
    expect(error.message).toContain('GET /me');
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
    // The default backoff would wait 1 + 2 + 4 + 8 s: a refused loopback port is not retried (onRetry
    // is called before every wait, so no call means no retry, however slow the machine).
    expect(retries).toEqual([]);
    await client.close();
  });

  it('treats no answer within timeoutMs as a network failure', async () => {
    const fake = await startFakeServer(() => {}); // never answers
    const client = new MerchantClient({ baseUrl: fake.url + '/v1', credential: 'svk_test_a.svs_test_b', backoff: FAST_BACKOFF, maxRetries: 1, timeoutMs: 100 });
    const error = await client.me().catch((e) => e);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toContain('No answer within 100 ms');
    expect(fake.requests).toHaveLength(2);
    await client.close();
    await fake.close();
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    const fake = await startFakeServer((_req, res) => sendJson(res, 503, { error: { code: 'maintenance', message: 'x', request_id: 'req_1' } }, { 'retry-after': '30' }));
    const client = new MerchantClient({ baseUrl: fake.url + '/v1', credential: 'svk_test_a.svs_test_b' });
    const controller = new AbortController();
    const pending = client.me({ signal: controller.signal, onResponse: () => setTimeout(() => controller.abort(new Error('stop')), 10) });
    await expect(pending).rejects.toThrow('stop');
    expect(fake.requests).toHaveLength(1);
    await client.close();
    await fake.close();
  });

  it('refuses a request undici cannot send once, as invalid_request', async () => {
    const fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: {} }));
    const client = new MerchantClient({ baseUrl: fake.url + '/v1', credential: 'svk_test_a.svs_test_b', userAgent: 'bad\nagent', backoff: FAST_BACKOFF });
    await expect(client.me()).rejects.toMatchObject({ status: 0, code: 'invalid_request' });
    const bigint = { accepting_orders: 1n } as unknown as { accepting_orders: boolean };
    await expect(client.store.patch(bigint)).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
    await client.close();
    await fake.close();
  });

  it('refuses a credential that cannot travel in a header without showing it', () => {
    expect(() => new MerchantClient({ baseUrl: 'http://127.0.0.1:9/v1', credential: 'svk_test_a.svs_test_se cret' })).toThrow(
      'The credential has characters a credential cannot have',
    );
    expect(() => new MerchantClient({ baseUrl: 'http://127.0.0.1:9/v1', credential: ' ' })).toThrow('needs a credential');
  });

  it('retries a 502 page that is not JSON', async () => {
    const fake = await startFakeServer((_req, res, n) => {
      if (n === 0) {
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<html>Bad gateway</html>');
      }
      sendJson(res, 200, { data: { ok: 1 } });
    });
    const client = new MerchantClient({ baseUrl: fake.url + '/v1', credential: 'svk_test_a.svs_test_b', backoff: FAST_BACKOFF });
    await client.me();
    expect(fake.requests).toHaveLength(2);
    await client.close();
    await fake.close();
  });
});

describe('EmulatorControl retries and timeout (docs/client.md: the control API is local)', () => {
  it('does not retry a 503 unless told, and retries it once with maxRetries: 1', async () => {
    const fake = await startFakeServer((_req, res) => sendJson(res, 503, { error: { code: 'maintenance', message: 'x', request_id: 'req_1' } }));
    const once = new EmulatorControl(fake.url);
    expect(await once.health().catch((e) => e)).toMatchObject({ status: 503, code: 'maintenance' });
    expect(fake.requests).toHaveLength(1);
    const twice = new EmulatorControl(fake.url, { maxRetries: 1 });
    expect(await twice.health().catch((e) => e)).toMatchObject({ status: 503, code: 'maintenance' });
    expect(fake.requests).toHaveLength(3);
    await once.close();
    await twice.close();
    await fake.close();
  });

  it('treats no answer within its timeoutMs as a network failure', async () => {
    const fake = await startFakeServer(() => {}); // never answers
    const control = new EmulatorControl(fake.url, { timeoutMs: 100 });
    const error = await control.health().catch((e) => e);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toContain('No answer within 100 ms');
    // Not sent again (a retry would be a second request). On a loaded machine the 100 ms can pass
    // before the server, in this same process, has read the first request, so it may have seen none.
    expect(fake.requests.length).toBeLessThanOrEqual(1);
    await control.close();
    await fake.close();
  });
});
