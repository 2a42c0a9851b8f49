import { describe, expect, it } from 'vitest';
import { recordBody, recordHeaders, redactJson } from '../../../src/cli/commands/proxy/record.js';

const SECRET = 'svs_test_AbCdEf0123456789AbCdEf0123456789AbCdEf01';

describe('recordHeaders', () => {
  it('masks Authorization and cookies and drops hop-by-hop headers', () => {
    const out = recordHeaders({ authorization: `Bearer svk_test_x.${SECRET}`, cookie: 'a=b', connection: 'keep-alive', 'idempotency-key': 'erp-key-0001' });
    expect(out).toEqual({ authorization: '[redacted]', cookie: '[redacted]', 'idempotency-key': 'erp-key-0001' });
  });

  it('redacts secrets in any other header value', () => {
    expect(recordHeaders({ 'x-note': `used ${SECRET}` })['x-note']).not.toContain(SECRET);
  });
});

describe('redactJson', () => {
  it('masks the private delivery code, the tracking URL and the signing secret', () => {
    const out = redactJson({ data: { delivery_code: '4821', tracking_url: 'http://x/_emulator/tracking/abc', signing_secret: 'whsec_abc', balance: 10 } });
    expect(out).toEqual({ data: { delivery_code: '[redacted]', tracking_url: '[redacted]', signing_secret: '[redacted]', balance: 10 } });
  });

  it('masks svs_ and whsec_ text wherever it is, without touching the input', () => {
    const input = { list: [{ note: `secret ${SECRET}` }, 'whsec_0123456789abcdef'] };
    const out = JSON.stringify(redactJson(input));
    expect(out).not.toMatch(/svs_test_AbCd|whsec_0123/);
    expect(input.list[1]).toBe('whsec_0123456789abcdef');
  });

  it('masks secret text in field names too', () => {
    const out = JSON.stringify(redactJson({ data: { [SECRET]: { [`x ${SECRET}`]: 1 } } }));
    expect(out).not.toContain(SECRET);
    expect(out).toContain('svs_test_[redacted]');
  });

  // 100,000 levels: deep enough that a recursive walk overflows the stack.
  it('masks a secret at the bottom of a body nested 100,000 levels deep', () => {
    let deep: unknown = 'svs_test_deep0123456789';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let bottom = redactJson(deep);
    while (Array.isArray(bottom)) bottom = bottom[0];
    expect(bottom).toBe('svs_test_[redacted]');
  });
});

describe('recordBody', () => {
  // Regression: JSON.stringify of such a body overflowed the stack and the exchange was never written.
  it('records a body nested 100,000 levels deep as redacted text, which a JSON line can hold', () => {
    const text = `${'['.repeat(100_000)}"${SECRET}"${']'.repeat(100_000)}`;
    const recorded = recordBody(Buffer.from(text), 'application/json');
    expect(typeof recorded).toBe('string');
    expect(() => JSON.stringify(recorded)).not.toThrow();
    expect(recorded).not.toContain(SECRET);
  });

  it('keeps JSON as JSON and other text as redacted text', () => {
    expect(recordBody(Buffer.from('{"a":1}'), 'application/json')).toEqual({ a: 1 });
    expect(recordBody(Buffer.from(`plain ${SECRET}`), 'text/plain')).not.toContain(SECRET);
    expect(recordBody(undefined, undefined)).toBeNull();
  });
});
