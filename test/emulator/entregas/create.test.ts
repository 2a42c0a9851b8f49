import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { newStore, asStore } from '../../helpers/stores.js';
import { buildEmulator } from '../../../emulator/app.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

let keys = 0;
const key = () => `entrega-key-${++keys}`;
const manual = (extra: Record<string, unknown> = {}) => ({
  request_key: `REQ-${keys + 1}`,
  customer: { name: 'Ana Benítez', phone: '+595981000111' },
  address: { line: 'Av. Mcal. López 1234, Asunción', reference: 'Portón verde' },
  payment_method: 'cash',
  customer_total: 85000,
  customer_fee: 10000,
  courier_fee: 12000,
  ...extra,
});
/** Over node:http, since fetch does not let a caller set the Host header. */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${emu.running.sandbox_base_url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${emu.test.credential}`,
        ...(payload ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
const post = (body: unknown, credential?: string) => emu.api('POST', '/entregas', { body, idempotencyKey: key(), credential });

describe('POST /entregas (manual data)', () => {
  it('answers 400 idempotency_key_required without the Idempotency-Key header', async () => {
    const res = await emu.api('POST', '/entregas', { body: manual() });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_required');
  });

  it('creates a requested delivery with integer amounts, the balance and the private code and tracking_url', async () => {
    const res = await post(manual({ request_key: 'REQ-A' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: expect.stringMatching(/^ent_[0-9A-Z]{26}$/),
      request_key: 'REQ-A',
      order_id: null,
      status: 'requested',
      customer_total: 85000,
      customer_fee: 10000,
      courier_fee: 12000,
      balance: 73000,
      settlement_confirmed: false,
      delivery_code: expect.stringMatching(/^\d{4}$/),
      tracking_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/_emulator\/tracking\/[0-9A-Z]{24}$/),
    });
    const get = await emu.api('GET', `/entregas/${res.body.data.id}`);
    expect(get.status).toBe(200);
    expect(get.body.data.delivery_code).toBe(res.body.data.delivery_code);
  });

  it('answers the same delivery with 200 for a repeated request_key with the same data, 409 idempotency_conflict with other data', async () => {
    const first = await post(manual({ request_key: 'REQ-B' }));
    const again = await post(manual({ request_key: 'REQ-B' }));
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await post(manual({ request_key: 'REQ-B', courier_fee: 15000 }));
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });

  it.each([
    ['a decimal amount', { customer_total: 85000.5 }, 'customer_total', 'invalid_type'],
    ['an amount as text', { courier_fee: '12000' }, 'courier_fee', 'invalid_type'],
    ['a negative amount', { customer_fee: -1 }, 'customer_fee', 'too_small'],
    ['an unknown payment method', { payment_method: 'crypto' }, 'payment_method', 'invalid_value'],
    ['an unknown field', { tip: 1000 }, 'tip', 'unknown_field'],
    ['a transfer without the confirmation of receipt', { payment_method: 'bank_transfer' }, 'transfer_received', 'transfer_confirmation_required'],
  ])('answers 422 for %s', async (_name, extra, field, code) => {
    const res = await post(manual(extra));
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
  });

  it('answers 422 listing every missing field of a manual delivery', async () => {
    const res = await post({ request_key: 'REQ-EMPTY' });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: any) => d.field)).toEqual(['customer', 'address', 'payment_method', 'customer_total', 'customer_fee', 'courier_fee']);
  });

  it('accepts a transfer once the merchant confirms receipt', async () => {
    const res = await post(manual({ request_key: 'REQ-T', payment_method: 'bank_transfer', transfer_received: true }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ transfer_received: true, balance: -12000 });
  });
});

describe('privacy of the delivery code and tracking_url', () => {
  it('answers 404 to another store credential, and the courier view never shows them', async () => {
    const res = await post(manual({ request_key: 'REQ-P' }));
    const id = res.body.data.id;
    const other = await newStore(emu);
    expect((await asStore(emu, other)('GET', `/entregas/${id}`)).status).toBe(404);
    const courier = await emu.control('GET', `/entregas/${id}`);
    expect(courier.status).toBe(200);
    expect(courier.body.data).not.toHaveProperty('delivery_code');
    expect(courier.body.data).not.toHaveProperty('tracking_url');
  });

  it('serves the customer tracking page at tracking_url with the status only', async () => {
    const res = await post(manual({ request_key: 'REQ-TR' }));
    const page = await fetch(res.body.data.tracking_url).then((r) => r.json());
    expect(page.data).toEqual({ status: 'requested', updated_at: expect.any(String) });
  });

  it('answers 403 insufficient_scope to GET without orders:read and POST without orders:write', async () => {
    const reader = asStore(emu, await newStore(emu, { scopes: ['orders:read'] }));
    const post403 = await reader('POST', '/entregas', { body: manual(), idempotencyKey: key() });
    expect(post403.status).toBe(403);
    expect(post403.body.error.code).toBe('insufficient_scope');

    // A store that may write but not read: its own delivery exists, yet GET is refused for the scope.
    const writer = asStore(emu, await newStore(emu, { scopes: ['orders:write'] }));
    const created = await writer('POST', '/entregas', { body: manual({ request_key: 'REQ-W' }), idempotencyKey: key() });
    expect(created.status).toBe(201);
    const get403 = await writer('GET', `/entregas/${created.body.data.id}`);
    expect(get403.status).toBe(403);
    expect(get403.body.error.code).toBe('insufficient_scope');
  });

  it('uses the configured host and port for tracking_url when the emulator was built without listening', async () => {
    const { app, emulator } = await buildEmulator({ memory: true, clock: 'manual', port: 4555 });
    try {
      expect(emulator.publicUrl).toBe('http://127.0.0.1:4555');
      const seed = emulator.seeds.find((x) => x.environment === 'test')!;
      const res = await app.inject({
        method: 'POST',
        url: '/sandbox/v1/entregas',
        // An allowed name other than the configured one (a foreign Host is refused 403 host_not_allowed).
        headers: { authorization: `Bearer ${seed.credential}`, 'idempotency-key': key(), host: 'localhost:9999' },
        payload: manual({ request_key: 'REQ-INJECT' }),
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().data.tracking_url).toMatch(/^http:\/\/127\.0\.0\.1:4555\/_emulator\/tracking\//);
    } finally {
      await app.close();
    }
  });

  it('builds tracking_url from the emulator\'s own address, not from the Host header', async () => {
    // A foreign Host is refused (403 host_not_allowed); an allowed name other than the emulator's URL shows the same.
    const forged = await rawRequest('POST', '/entregas', { host: 'localhost:9999', 'idempotency-key': key() }, manual({ request_key: 'REQ-HOST' }));
    expect(forged.status).toBe(201);
    expect(forged.body.data.tracking_url).toBe(`${emu.url}/_emulator/tracking/${forged.body.data.tracking_url.split('/').at(-1)}`);
    expect(forged.body.data.tracking_url).not.toContain('localhost');
    const read = await rawRequest('GET', `/entregas/${forged.body.data.id}`, { host: 'localhost:9999' });
    expect(read.body.data.tracking_url).toBe(forged.body.data.tracking_url);
  });
});
