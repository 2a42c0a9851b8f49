import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { newStore, asStore } from '../helpers/stores.js';

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
    const made = await newStore(emu, { scopes: ['orders:read'] });
    const call = asStore(emu, made);
    expect((await call('POST', '/entregas', { body: manual(), idempotencyKey: key() })).body.error.code).toBe('insufficient_scope');
  });
});
