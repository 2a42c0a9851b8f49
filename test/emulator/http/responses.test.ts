import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../emulator/app.js';
import { logCapture, request, startTestEmulator, type Response, type TestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The spec's error body, with request_id equal to the X-Request-Id header. */
function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

describe('X-Request-Id', () => {
  it('is a req_ id on a success', async () => {
    const res = await emu.api('GET', '/me');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  it('is a new id on every response', async () => {
    const a = await emu.api('GET', '/me');
    const b = await emu.api('GET', '/me');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('is on a 401 and equals the body request_id', async () => {
    expectError(await emu.api('GET', '/me', { credential: null }), 401, 'unauthenticated');
  });

  it('is on the control API too', async () => {
    const res = await emu.control('GET', '/health');
    expect(res.body).toEqual({ data: { ok: true } });
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });
});

describe('unknown routes', () => {
  it('answers 404 not_found under a base path', async () => {
    expectError(await emu.api('GET', '/no-such-thing'), 404, 'not_found');
  });

  it('answers 404 not_found outside the base paths', async () => {
    expectError(await request(`${emu.url}/v2/me`, 'GET'), 404, 'not_found');
  });

  it('answers 404 not_found for a known path with another method', async () => {
    expectError(await emu.api('DELETE', '/me'), 404, 'not_found');
  });

  it('answers 404 not_found for a path with broken percent-encoding', async () => {
    expectError(await emu.api('GET', '/catalog/products/%E0%A4%A'), 404, 'not_found');
  });
});

describe('400 malformed_json', () => {
  it('answers invalid JSON', async () => {
    expectError(
      await emu.api('PATCH', '/store', { rawBody: '{"accepting_orders": tru', headers: { 'content-type': 'application/json' } }),
      400,
      'malformed_json',
    );
  });

  it('answers a JSON array body', async () => {
    expectError(
      await emu.api('PATCH', '/store', { rawBody: '[{"accepting_orders": false}]', headers: { 'content-type': 'application/json' } }),
      400,
      'malformed_json',
    );
  });

  it('answers a JSON scalar body', async () => {
    expectError(await emu.api('PATCH', '/store', { rawBody: '"hola"', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
  });

  it('answers a wrong Content-Type', async () => {
    expectError(
      await emu.api('PATCH', '/store', { rawBody: '{"accepting_orders": false}', headers: { 'content-type': 'text/plain' } }),
      400,
      'malformed_json',
    );
  });

  it('answers a write without a body', async () => {
    expectError(await emu.api('PATCH', '/store'), 400, 'malformed_json');
  });

  it('accepts application/json; charset=utf-8', async () => {
    const res = await emu.api('PATCH', '/store', {
      rawBody: '{"accepting_orders": false}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });
});

describe('413 payload_too_large', () => {
  it('answers a body over 5 MB', async () => {
    const big = JSON.stringify({ accepting_orders: false, padding: 'x'.repeat(5 * 1024 * 1024) });
    expectError(
      await emu.api('PATCH', '/store', { rawBody: big, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
  });
});

describe('422 for unknown fields in a write', () => {
  it('lists the unknown field in details', async () => {
    const res = await emu.api('PATCH', '/store', { body: { accepting_orders: false, name: 'Otra' } });
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field: 'name', code: 'unknown_field' }));
  });

  it('names a wrong type in details', async () => {
    const res = await emu.api('PATCH', '/store', { body: { accepting_orders: 'yes' } });
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'accepting_orders', code: 'invalid_type' })]);
  });
});

describe('500 internal_error', () => {
  it('logs the unexpected exception with every secret redacted', async () => {
    const { lines, logStream } = logCapture();
    const { app } = await buildEmulator({ memory: true, clock: 'manual', logger: true, logStream });
    app.get('/boom', async () => {
      throw new Error('svs_test_AAAAAAAAAAAAAAAAAAAA and whsec_BBBBBBBBBBBB exploded');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address() as { port: number };
      await request(`http://127.0.0.1:${address.port}/boom`, 'GET', { headers: { authorization: 'Bearer svk_test_x.svs_test_CCCCCCCC' } });
    } finally {
      await app.close();
    }
    const log = lines.join('');
    expect(log).toContain('exploded');
    expect(log).toContain('svs_test_[redacted]');
    expect(log).not.toMatch(/svs_test_[A-Z]{4}|whsec_B|CCCCCCCC/);
  });

  it('answers an unexpected exception without stack or secret', async () => {
    const { app } = await buildEmulator({ memory: true, clock: 'manual' });
    app.get('/boom', async () => {
      throw new Error('svs_test_AAAAAAAAAAAAAAAAAAAA exploded at /home/dev/app.js:12:3');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address() as { port: number };
      const res = await request(`http://127.0.0.1:${address.port}/boom`, 'GET');
      expectError(res, 500, 'internal_error');
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('svs_');
      expect(text).not.toContain('exploded');
      expect(text).not.toContain('app.js');
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'request_id']);
    } finally {
      await app.close();
    }
  });
});
