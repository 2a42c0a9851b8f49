import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { hmacSha256Hex, parseSignatureHeader, sign, signatureHeader, verify } from '../../src/webhooks/index.js';

const bytes = (n: number, b: number) => Buffer.alloc(n, b);

// RFC 4231, section 4: HMAC-SHA-256 test cases 1–7 (case 5 is truncated to 128 bits).
const RFC4231 = [
  { name: 'case 1', key: bytes(20, 0x0b), data: Buffer.from('Hi There'), mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7' },
  { name: 'case 2', key: Buffer.from('Jefe'), data: Buffer.from('what do ya want for nothing?'), mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843' },
  { name: 'case 3', key: bytes(20, 0xaa), data: bytes(50, 0xdd), mac: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe' },
  {
    name: 'case 4',
    key: Buffer.from(Array.from({ length: 25 }, (_, i) => i + 1)),
    data: bytes(50, 0xcd),
    mac: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
  },
  { name: 'case 5 (truncated)', key: bytes(20, 0x0c), data: Buffer.from('Test With Truncation'), mac: 'a3b6167473100ee06e0c796c2955552b' },
  {
    name: 'case 6',
    key: bytes(131, 0xaa),
    data: Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'),
    mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  },
  {
    name: 'case 7',
    key: bytes(131, 0xaa),
    data: Buffer.from(
      'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    mac: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
  },
];

describe('HMAC-SHA256 (RFC 4231 test vectors)', () => {
  it.each(RFC4231)('computes $name', ({ key, data, mac }) => {
    expect(hmacSha256Hex(key, data).slice(0, mac.length)).toBe(mac);
  });
});

const secret = 'whsec_test_secret_0123456789';
const body = '{"id":"evt_01","type":"webhook.test","data":{"n":"ñandú"}}';
const ts = '1763800000';

describe('sign', () => {
  it('is the lowercase hex HMAC-SHA256 of timestamp "." raw body', () => {
    const expected = createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
    expect(sign(secret, ts, body)).toBe(expected);
    expect(sign(secret, Number(ts), Buffer.from(body))).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('writes one v1 entry per secret, new secret first, comma-separated', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], ts, body);
    expect(header).toBe(`v1=${sign('whsec_new', ts, body)},v1=${sign('whsec_old', ts, body)}`);
    expect(parseSignatureHeader(header)).toHaveLength(2);
  });
});

describe('verify', () => {
  const now = Number(ts);
  const good = signatureHeader([secret], ts, body);

  it('accepts a valid signature within the 300 s tolerance', () => {
    expect(verify({ signature: good, timestamp: ts, rawBody: body, secrets: secret, nowSeconds: now + 300 })).toEqual({ ok: true });
    expect(verify({ signature: good, timestamp: ts, rawBody: body, secrets: secret, nowSeconds: now - 300 })).toEqual({ ok: true });
  });

  it('rejects a timestamp more than 300 s away from the receiver clock', () => {
    expect(verify({ signature: good, timestamp: ts, rawBody: body, secrets: secret, nowSeconds: now + 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('rejects a body changed by one byte (the signature covers the raw body)', () => {
    const reencoded = JSON.stringify(JSON.parse(body), null, 1);
    expect(verify({ signature: good, timestamp: ts, rawBody: reencoded, secrets: secret, nowSeconds: now }).ok).toBe(false);
  });

  it('rejects a signature made for another timestamp', () => {
    const other = signatureHeader([secret], now + 1, body);
    expect(verify({ signature: other, timestamp: ts, rawBody: body, secrets: secret, nowSeconds: now })).toMatchObject({ ok: false });
  });

  it('accepts a header with two entries when either matches (rotation)', () => {
    const rotating = signatureHeader(['whsec_new', secret], ts, body);
    expect(verify({ signature: rotating, timestamp: ts, rawBody: body, secrets: secret, nowSeconds: now }).ok).toBe(true);
    expect(verify({ signature: rotating, timestamp: ts, rawBody: body, secrets: 'whsec_new', nowSeconds: now }).ok).toBe(true);
    expect(verify({ signature: rotating, timestamp: ts, rawBody: body, secrets: 'whsec_other', nowSeconds: now }).ok).toBe(false);
  });

  it('reports missing headers, malformed timestamps and malformed entries', () => {
    expect(verify({ signature: undefined, timestamp: ts, rawBody: body, secrets: secret })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verify({ signature: good, timestamp: '', rawBody: body, secrets: secret })).toEqual({ ok: false, reason: 'missing_timestamp' });
    expect(verify({ signature: good, timestamp: '17638e5', rawBody: body, secrets: secret })).toEqual({ ok: false, reason: 'invalid_timestamp' });
    expect(verify({ signature: 'v1=zz,v0=abc', timestamp: ts, rawBody: body, secrets: secret, nowSeconds: now })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });
});
