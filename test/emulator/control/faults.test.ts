import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { globMatcher } from '../../../emulator/faults.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterEach(() => emu.control('DELETE', '/faults'));
afterAll(() => emu.close());

describe('POST /_emulator/faults', () => {
  it('makes the next matching call fail as told, then lets calls through (times defaults to 1)', async () => {
    const res = await emu.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/store', status: 503, retry_after: 7 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ method: 'GET', path: '/sandbox/v1/store', status: 503, code: 'maintenance', retry_after: 7, times: 1 });
    const failed = await emu.api('GET', '/store');
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('maintenance');
    expect(failed.headers.get('retry-after')).toBe('7');
    expect(failed.body.error.request_id).toBe(failed.headers.get('x-request-id'));
    expect((await emu.api('GET', '/store')).status).toBe(200);
  });

  it.each([
    [429, 'rate_limited', '1'],
    [500, 'internal_error', null],
    [503, 'maintenance', '1'],
    [404, 'not_found', null],
  ])('defaults the code for status %i to %s', async (status, code, retryAfter) => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/me', status });
    const res = await emu.api('GET', '/me');
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.headers.get('retry-after')).toBe(retryAfter);
  });

  it('answers with the code asked for, even one outside the catalogue', async () => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/me', status: 502, code: 'bad_gateway' });
    const res = await emu.api('GET', '/me');
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('bad_gateway');
  });

  it('counts times', async () => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/me', status: 500, times: 2 });
    expect((await emu.api('GET', '/me')).status).toBe(500);
    expect((await emu.control('GET', '/faults')).body.data[0].times).toBe(1);
    expect((await emu.api('GET', '/me')).status).toBe(500);
    expect((await emu.api('GET', '/me')).status).toBe(200);
    expect((await emu.control('GET', '/faults')).body.data).toEqual([]);
  });

  it('matches the full path with a glob: * within a segment, ** across segments', async () => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/orders/*/ack', status: 500, times: 5 });
    await emu.control('POST', '/faults', { path: '/v1/**', status: 503, times: 5 });
    expect((await emu.api('POST', '/orders/ord_X/ack', { body: {} })).status).toBe(500);
    expect((await emu.api('POST', '/orders/ord_X/status', { body: {} })).status).not.toBe(500);
    expect((await emu.api('GET', '/me')).status).toBe(200);
    expect((await emu.liveApi('GET', '/me')).status).toBe(503);
    expect((await emu.liveApi('GET', '/catalog/products')).status).toBe(503);
  });

  it('matches only the method given', async () => {
    await emu.control('POST', '/faults', { method: 'patch', path: '/sandbox/v1/store', status: 500 });
    expect((await emu.api('GET', '/store')).status).toBe(200);
    expect((await emu.api('PATCH', '/store', { body: { accepting_orders: false } })).status).toBe(500);
  });

  it('answers before the request runs: no change is made', async () => {
    await emu.control('PATCH', `/stores/${emu.test.store_id}`, { fulfillment_types: ['delivery', 'pickup'] });
    await emu.control('POST', '/faults', { method: 'PATCH', path: '/sandbox/v1/store', status: 500 });
    const res = await emu.api('PATCH', '/store', { body: { accepting_orders: false }, idempotencyKey: 'falla-0001' });
    expect(res.status).toBe(500);
    // The key was never seen: the same key with another body runs normally.
    const next = await emu.api('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'falla-0001' });
    expect(next.status).toBe(422);
  });

  it('fails even a call without a credential (the fault comes first)', async () => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/me', status: 429 });
    expect((await emu.api('GET', '/me', { credential: null })).status).toBe(429);
  });

  it('delays a call by delay_ms and lets it run when no status is given', async () => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/me', delay_ms: 150 });
    const started = performance.now();
    const res = await emu.api('GET', '/me');
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('answers 422 with details for a bad fault', async () => {
    const res = await emu.control('POST', '/faults', { path: 'sandbox/v1/me', status: 200, times: 0, color: 1 });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['color', 'path', 'status', 'times']);
    const empty = await emu.control('POST', '/faults', { path: '/v1/me' });
    expect(empty.status).toBe(422);
  });
});

describe('DELETE /_emulator/faults', () => {
  it('clears every fault', async () => {
    await emu.control('POST', '/faults', { path: '/sandbox/v1/me', status: 500, times: 10 });
    const res = await emu.control('DELETE', '/faults');
    expect(res.body.data).toEqual({ cleared: 1 });
    expect((await emu.api('GET', '/me')).status).toBe(200);
  });
});

// issue 15: a fault glob became a regular expression, and `/**a**a**…**!` backtracked for seconds on
// every request whose path it was tried on, unauthenticated ones included.
describe('fault globs', () => {
  it('tries a pathological glob on a long path in milliseconds, not seconds', async () => {
    const glob = `/${'**a'.repeat(12)}**!`; // ~8.6 s per request as a regular expression
    expect((await emu.control('POST', '/faults', { path: glob, status: 500, times: 1000 })).status).toBe(201);
    const started = performance.now();
    const res = await request(`${emu.running.sandbox_base_url}/orders/${'a'.repeat(30)}`, 'GET');
    expect(res.status).toBe(401); // not matched: the request ran, without a credential
    expect(performance.now() - started).toBeLessThan(2000);
    const attack = `/${'**a'.repeat(165)}**!`; // the attack's own, 499 characters
    expect((await emu.control('POST', '/faults', { path: attack, status: 500 })).status).toBe(201);
    expect((await request(`${emu.running.sandbox_base_url}/orders/${'a'.repeat(400)}`, 'GET')).status).toBe(401);
  });

  /** The glob as a regular expression: the old matcher, an oracle on inputs too small to blow up. */
  function oracle(glob: string): RegExp {
    let out = '';
    for (let i = 0; i < glob.length; i++) {
      const c = glob[i];
      if (c === '*' && glob[i + 1] === '*') {
        out += '.*';
        i++;
      } else if (c === '*') out += '[^/]*';
      else if (c === '?') out += '[^/]';
      else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${out}$`);
  }

  it('matches what the glob means: * within a segment, ** across, ? one character of a segment', () => {
    const glob = fc.array(fc.constantFrom('a', 'b', '/', '*', '?', '.'), { maxLength: 9 }).map((c) => c.join(''));
    const path = fc.array(fc.constantFrom('a', 'b', '/', '.'), { maxLength: 10 }).map((c) => c.join(''));
    fc.assert(fc.property(glob, path, (g, p) => {
      expect(globMatcher(g)(p)).toBe(oracle(g).test(p));
    }), { numRuns: 5000 });
  });
});
