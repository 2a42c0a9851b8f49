import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { rawRequest, stalledRequest } from '../../helpers/security.js';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../../src/server/timeouts.js';

// The request timeout, shortened (TEST-ONLY) so that stalled sockets are cut fast. A cut is asserted
// halfway between this and the nearest time a server that ignored it would take (the default headers
// limit, 10 s; for a stalled body, the default request limit, 30 s): a slow machine cannot fail it, a
// missing cut can. The sockets wait longer than both bounds. Only the stalled sockets' tests use that
// emulator (`cut`): on a loaded machine a whole request can take longer than 600 ms to be read, and
// every other test here is about what the server answers, not when it gives up.
const CUT_MS = 600;
const CUT_BOUND_MS = (CUT_MS + HEADERS_TIMEOUT_MS) / 2;
const BODY_CUT_BOUND_MS = (CUT_MS + REQUEST_TIMEOUT_MS) / 2;
const STALL_WAIT_MS = 2 * HEADERS_TIMEOUT_MS;

let emu: TestEmulator;
let port: string;
let cut: TestEmulator;
let cutPort: string;
beforeAll(async () => {
  [emu, cut] = await Promise.all([startTestEmulator(), startTestEmulator({ requestTimeoutMs: CUT_MS })]);
  port = new URL(emu.url).port;
  cutPort = new URL(cut.url).port;
});
afterAll(() => Promise.all([emu.close(), cut.close()]));

const json = { 'content-type': 'application/json' };

describe('Host check (DNS rebinding)', () => {
  it.each(['evil.example', 'evil.example:4010', '127.0.0.1.nip.io', 'localhost.evil.example', '10.0.0.1'])(
    'answers 403 in the spec’s error body to Host: %s, on API, control and unknown routes and a path not valid percent-encoding',
    async (host) => {
      for (const path of ['/sandbox/v1/me', '/_emulator/state', '/_emulator/panel', '/nothing-here', '/sandbox/v1/orders/%zz']) {
        const res = await rawRequest(`${emu.url}${path}`, 'GET', { host, authorization: `Bearer ${emu.test.credential}` });
        expect(res.status, path).toBe(403);
        expect(res.body.error.code).toBe('host_not_allowed');
        expect(res.body.error.request_id).toMatch(/^req_/);
        expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
      }
    },
  );

  it.each(['localhost', `localhost:${'4010'}`, '127.0.0.1', '[::1]:9', 'LOCALHOST'])('serves Host: %s (any port)', async (host) => {
    const res = await rawRequest(`${emu.url}/_emulator/health`, 'GET', { host });
    expect(res.status).toBe(200);
  });

  it('refuses a POST /_emulator/reset with a rebinding Host and does not reset', async () => {
    await emu.control('POST', '/clock/advance', { seconds: 60 });
    const res = await rawRequest(`${emu.url}/_emulator/reset`, 'POST', { ...json, host: 'attacker.example:' + port }, '{}');
    expect(res.status).toBe(403);
    const clock = await emu.control('GET', '/clock');
    expect(clock.body.data.offset_seconds).toBe(60);
  });
});

describe('state-changing control routes from a web page', () => {
  it('refuses a bodyless form POST /_emulator/reset (no JSON Content-Type) with 400 malformed_json', async () => {
    await emu.control('POST', '/clock/advance', { seconds: 1 });
    const before = (await emu.control('GET', '/clock')).body.data.offset_seconds;
    for (const type of [undefined, 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const res = await rawRequest(`${emu.url}/_emulator/reset`, 'POST', headers);
      expect(res.status, String(type)).toBe(400);
      expect(res.body.error.code).toBe('malformed_json');
    }
    expect((await emu.control('GET', '/clock')).body.data.offset_seconds).toBe(before);
  });

  it('refuses a cross-site Origin or Sec-Fetch-Site: cross-site with 403, even with a JSON body', async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `http://127.0.0.1.nip.io:${port}` },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const res = await rawRequest(`${emu.url}/_emulator/stores`, 'POST', { ...json, ...headers }, '{"environment":"live"}');
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.code).toBe('host_not_allowed');
    }
    const state = await emu.control('GET', '/state');
    const live = state.body.data.environments.find((e: any) => e.name === 'live');
    expect(live.stores).toHaveLength(1);
  });

  it('accepts the emulator’s own origin, a loopback origin and same-origin fetch metadata', async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: emu.url },
      { origin: 'http://localhost:3000' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ]) {
      const res = await rawRequest(`${emu.url}/_emulator/faults`, 'DELETE', { ...json, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('leaves reads alone: a cross-site GET of /_emulator/health is not a state change', async () => {
    const res = await rawRequest(`${emu.url}/_emulator/health`, 'GET', { origin: 'https://evil.example' });
    expect(res.status).toBe(200);
  });
});

describe('never a 500 from bad input, never a hung connection', () => {
  it.each([
    [{ b: 1, a: [1, { d: 2, c: null }] }, '{"a":[1,{"c":null,"d":2}],"b":1}'],
    [[], '[]'],
    [{}, '{}'],
    [{ 'x"y': 'é', n: -1.5, t: true, e: [[], {}] }, '{"e":[[],{}],"n":-1.5,"t":true,"x\\"y":"é"}'],
    [undefined, 'null'],
  ])('writes the canonical JSON of %j', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it('writes the same canonical JSON past the recursion limit as before it', () => {
    const nested = (depth: number) => {
      let v: unknown = { z: [1, null, 'a'], a: true };
      for (let i = 0; i < depth; i++) v = { b: v, a: [i] };
      return v;
    };
    const text = canonicalJson(nested(1_200));
    expect(text.startsWith('{"a":[1199],"b":{"a":[1198],"b":')).toBe(true);
    expect(text.endsWith('{"a":true,"z":[1,null,"a"]}' + '}'.repeat(1_200))).toBe(true);
    expect(JSON.parse(text)).toEqual(nested(1_200));
  });

  it('writes the canonical JSON of a value nested 100,000 levels deep', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    expect(canonicalJson(deep)).toHaveLength(100_000 * 8 + 1);
  });

  it('answers a nested body with an Idempotency-Key without a 500: 422 up to 1,000 levels, 400 past them', async () => {
    // Past the idempotency fingerprint's 500 recursive levels, within the 1,000 a body may have.
    const depth = 990;
    const body = `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const res = await emu.api('PATCH', '/store', { rawBody: body, headers: json, idempotencyKey: 'deep-nesting-1' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    const objects = `{"a":${'{"a":'.repeat(998)}1${'}'.repeat(998)}}`;
    expect((await emu.api('POST', '/catalog/batch', { rawBody: objects, headers: json, idempotencyKey: 'deep-nesting-2' })).status).toBe(422);
    const deeper = `{"a":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`;
    const again = await emu.api('POST', '/catalog/batch', { rawBody: deeper, headers: json, idempotencyKey: 'deep-nesting-3' });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('malformed_json');
  });

  it.each(['QUERY', 'PROPFIND', 'MKCOL', 'LOCK'])('answers %s, a method the API does not have, 404 not_found', async (method) => {
    for (const path of ['/sandbox/v1/orders', '/_emulator/state', '/nowhere']) {
      const res = await rawRequest(`${emu.url}${path}`, method, { ...json, authorization: `Bearer ${emu.test.credential}` }, '{}');
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('closes a stalled body with 400 malformed_json in the spec’s body once the request timeout passes', async () => {
    const head = `PATCH /sandbox/v1/store HTTP/1.1\r\nHost: 127.0.0.1:${cutPort}\r\nAuthorization: Bearer ${cut.test.credential}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const result = await stalledRequest(cut.url, head, '{"accepting_', STALL_WAIT_MS);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.closedAfterMs!).toBeLessThan(BODY_CUT_BOUND_MS);
    expect(result.text).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(result.text.slice(result.text.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('malformed_json');
    expect(body.error.request_id).toMatch(/^req_/);
  });

  it('closes 300 stalled connections, each with a spec error body', async () => {
    // The control API reads the body before anything else answers (no credential, no rate limit).
    const head = `POST /_emulator/stores HTTP/1.1\r\nHost: 127.0.0.1:${cutPort}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n`;
    const results = await Promise.all(Array.from({ length: 300 }, () => stalledRequest(cut.url, head, '{"environment":', STALL_WAIT_MS)));
    for (const r of results) {
      expect(r.closedAfterMs).not.toBeNull();
      expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(r.text).toContain('"code":"malformed_json"');
    }
    // 300 sockets on a loaded machine: the bound is the body's (a server without the cut holds them 30 s).
    expect(Math.max(...results.map((r) => r.closedAfterMs!))).toBeLessThan(BODY_CUT_BOUND_MS);
  });

  it('answers headers past the size Node reads with 413 payload_too_large in the spec’s body, then closes', async () => {
    const head = `GET /sandbox/v1/me HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const result = await stalledRequest(emu.url, head, '', STALL_WAIT_MS);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.text).toMatch(/^HTTP\/1\.1 413 /);
    const body = JSON.parse(result.text.slice(result.text.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('payload_too_large');
    expect(body.error.request_id).toMatch(/^req_/);
    expect(result.text).toContain(`X-Request-Id: ${body.error.request_id}`);
  });

  it('answers a request line that is not HTTP with 400 malformed_json in the spec’s body, then closes', async () => {
    const result = await stalledRequest(emu.url, 'NOT AN HTTP REQUEST\r\n\r\n', '', STALL_WAIT_MS);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.text).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(result.text.slice(result.text.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('malformed_json');
  });

  it('closes a connection that never sends a byte', async () => {
    const result = await stalledRequest(cut.url, '', '', STALL_WAIT_MS);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.closedAfterMs!).toBeLessThan(CUT_BOUND_MS);
  });

  it('closes a connection whose headers never finish', async () => {
    const result = await stalledRequest(cut.url, `GET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n`, 'X-Slow: 1', STALL_WAIT_MS);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.closedAfterMs!).toBeLessThan(CUT_BOUND_MS);
  });
});
