import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// spec: Conventions, Format — `Content-Type: application/json; charset=utf-8`, text in UTF-8.
// DESIGN: a write whose body is not a JSON object (wrong Content-Type included) → 400 malformed_json.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const CATEGORY = '{"name":"Bebidas"}';

/** PUT /catalog/categories/CAT-1 with raw bytes and the given headers. */
async function putRaw(bytes: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>) {
  const res = await fetch(`${emu.running.sandbox_base_url}/catalog/categories/CAT-1`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${emu.test.credential}`, ...headers },
    body: bytes,
  });
  return { status: res.status, body: await res.json() };
}

describe('the Content-Type of a request body', () => {
  it.each([
    ['application/json'],
    ['application/json; charset=utf-8'],
    ['Application/JSON; Charset=UTF-8'],
    ['application/json;charset="utf-8"'],
    ['application/json ;  charset=utf-8 '],
  ])('accepts %s', async (type) => {
    const res = await putRaw(CATEGORY, { 'content-type': type });
    expect(res.status).toBeLessThan(300);
  });

  it.each([
    ['application/vnd.api+json'],
    ['application/problem+json'],
    ['text/json'],
    ['text/plain'],
    ['application/json; charset=latin1'],
    ['application/json; charset=utf-16'],
    ['application/json; charset=iso-8859-1'],
    ['application/json; boundary=x'],
    ['application/jsonx'],
  ])('answers 400 malformed_json to %s', async (type) => {
    const res = await putRaw(CATEGORY, { 'content-type': type });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });

  it('answers 400 malformed_json to bytes that are not valid UTF-8', async () => {
    // {"name":"Caf\xE9"} — a Latin-1 é, not UTF-8.
    const bytes: Uint8Array<ArrayBuffer> = new Uint8Array([...Buffer.from('{"name":"Caf'), 0xe9, ...Buffer.from('"}')]);
    const res = await putRaw(bytes, { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });

  it('accepts UTF-8 text beyond ASCII and keeps it as sent', async () => {
    const res = await putRaw('{"name":"Café ñandutí"}', { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBeLessThan(300);
    const list = await emu.api('GET', '/catalog/categories');
    expect(list.body.data.find((c: any) => c.external_id === 'CAT-1').name).toBe('Café ñandutí');
  });

  it.each([['gzip'], ['deflate'], ['br']])('answers 400 malformed_json to Content-Encoding %s', async (encoding) => {
    const res = await putRaw(CATEGORY, { 'content-type': 'application/json', 'content-encoding': encoding });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });

  it('accepts Content-Encoding identity', async () => {
    const res = await putRaw(CATEGORY, { 'content-type': 'application/json', 'content-encoding': 'identity' });
    expect(res.status).toBeLessThan(300);
  });
});

describe('a write that takes a body and gets none', () => {
  it.each([
    ['PUT', '/catalog/categories/CAT-9'],
    ['PUT', '/catalog/products/P-9'],
    ['PATCH', '/catalog/products/P-9'],
    ['PATCH', '/catalog/options/O-9'],
    ['PATCH', '/store'],
  ])('answers 400 malformed_json to %s %s without a body', async (method, path) => {
    const res = await emu.api(method, path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });

  it('answers 400 malformed_json to POST /catalog/batch without a body', async () => {
    const res = await emu.api('POST', '/catalog/batch', { idempotencyKey: 'no-body-batch-1' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });
});

describe('a body sent to an endpoint whose request is "none"', () => {
  it('answers 422 validation_failed with one unknown_field per key on DELETE', async () => {
    await emu.api('PUT', '/catalog/categories/CAT-D', { body: { name: 'Vacía' } });
    const res = await emu.api('DELETE', '/catalog/categories/CAT-D', { body: { force: true, reason: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ field: 'force', code: 'unknown_field' }),
      expect.objectContaining({ field: 'reason', code: 'unknown_field' }),
    ]);
    // Nothing happened.
    const list = await emu.api('GET', '/catalog/categories');
    expect(list.body.data.find((c: any) => c.external_id === 'CAT-D').active).toBe(true);
  });

  it('accepts DELETE with no body or with {}', async () => {
    await emu.api('PUT', '/catalog/categories/CAT-E', { body: { name: 'Vacía' } });
    expect((await emu.api('DELETE', '/catalog/categories/CAT-E', { body: {} })).status).toBe(200);
    expect((await emu.api('DELETE', '/catalog/categories/CAT-E')).status).toBe(200);
  });

  it('answers 422 unknown_field to POST /webhook/test and /webhook/rotate-secret with fields', async () => {
    await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/hooks', events: ['*'] } });
    for (const path of ['/webhook/test', '/webhook/rotate-secret']) {
      const res = await emu.api('POST', path, { body: { dry_run: true } });
      expect(res.status).toBe(422);
      expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'dry_run', code: 'unknown_field' })]);
    }
    expect((await emu.api('POST', '/webhook/rotate-secret', { body: {} })).status).toBe(200);
  });
});
