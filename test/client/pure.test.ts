import { describe, expect, it } from 'vitest';
import {
  ApiError, fillPath, generateIdempotencyKey, isRetryable, isValidIdempotencyKey, normalizeBaseUrl, parseRetryAfter, queryString, retryDelay,
} from '../../src/client/index.js';

describe('retryDelay', () => {
  it.each([
    [0, null, 1000],
    [1, null, 2000],
    [2, null, 4000],
    [3, null, 8000],
    [4, null, 8000], // capped
    [0, 3, 3000], // Retry-After longer than the backoff wins
    [3, 1, 8000], // backoff longer than Retry-After wins
    [0, 0, 1000],
  ])('retry %i with Retry-After %s waits %i ms without jitter', (retry, retryAfter, ms) => {
    expect(retryDelay(retry, retryAfter, { jitter: 0 })).toBe(ms);
  });

  it.each([[0, 800], [0.5, 1000], [1, 1200]])('spreads ±20 %% by default (random %f → %i ms)', (random, ms) => {
    expect(retryDelay(0, null, {}, () => random)).toBe(ms);
  });

  it('follows shrunk backoff options', () => {
    expect(retryDelay(5, null, { baseMs: 2, maxMs: 10, jitter: 0 })).toBe(10);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-24T10:00:00Z');
  it.each([
    [undefined, null],
    ['', null],
    ['3', 3],
    [' 10 ', 10],
    ['1.5', 1.5],
    ['Tue, 24 Nov 2026 10:00:30 GMT', 30],
    ['Tue, 24 Nov 2026 09:00:00 GMT', 0],
    ['soon', null],
  ])('reads %j as %j seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});

describe('isRetryable', () => {
  it.each([
    [0, 'network_error', true], [0, 'client_closed', false], [0, 'invalid_request', false],
    [429, 'rate_limited', true], [500, 'internal_error', true], [502, 'internal_error', true], [503, 'maintenance', true], [504, 'internal_error', true],
    [400, 'malformed_json', false], [401, 'unauthenticated', false], [403, 'insufficient_scope', false], [404, 'not_found', false],
    [409, 'request_in_progress', false], [413, 'payload_too_large', false], [422, 'validation_failed', false], [501, 'internal_error', false],
    [200, 'invalid_response', false],
  ])('status %i %s → %s', (status, code, retry) => {
    expect(isRetryable(new ApiError({ status, code, message: 'x' }))).toBe(retry);
  });

  // issue 14: nothing listens on that port of this machine (an emulator that is not running).
  const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}:4010`), { code: 'ECONNREFUSED', address, port: 4010 });
  it.each([
    ['127.0.0.1', false], ['127.0.0.2', false], ['::1', false], ['::ffff:127.0.0.1', false], ['203.0.113.7', true], ['2001:db8::1', true],
  ])('a connection refused by %s is retried: %s', (address, retry) => {
    expect(isRetryable(new ApiError({ status: 0, code: 'network_error', message: 'x', cause: refused(address) }))).toBe(retry);
  });

  it('a refusal reported per address tried (AggregateError) is not retried only when every address is loopback', () => {
    const aggregate = (...addresses: string[]) => Object.assign(new AggregateError(addresses.map(refused)), { code: 'ECONNREFUSED' });
    expect(isRetryable(new ApiError({ status: 0, code: 'network_error', message: 'x', cause: aggregate('::1', '127.0.0.1') }))).toBe(false);
    expect(isRetryable(new ApiError({ status: 0, code: 'network_error', message: 'x', cause: aggregate('::1', '203.0.113.7') }))).toBe(true);
  });

  it('a reset or timed-out loopback connection is still retried', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', address: '127.0.0.1' });
    expect(isRetryable(new ApiError({ status: 0, code: 'network_error', message: 'x', cause: reset }))).toBe(true);
  });
});

describe('fillPath and queryString', () => {
  it.each([
    ['/orders/{order_id}/ack', { order_id: 'ord_1' }, '/orders/ord_1/ack'],
    ['/entregas/{id}/{action}', { id: 'ent_1', action: 'cancel' }, '/entregas/ent_1/cancel'],
    ['/catalog/products/{external_id}', { external_id: 'A B/C' }, '/catalog/products/A%20B%2FC'],
    ['/me', undefined, '/me'],
  ])('fills %s', (template, params, path) => {
    expect(fillPath(template, params)).toBe(path);
  });

  it('refuses a missing path parameter', () => {
    expect(() => fillPath('/orders/{order_id}', {})).toThrow('Missing path parameter order_id');
  });

  it.each([
    [undefined, ''],
    [{}, ''],
    [{ status: ['pending', 'accepted'] }, '?status=pending%2Caccepted'],
    [{ active: true, limit: 50 }, '?active=true&limit=50'],
    [{ cursor: undefined, after: null, types: 'order.created' }, '?types=order.created'],
    [{ updated_since: '2026-11-22T10:30:00-03:00' }, '?updated_since=2026-11-22T10%3A30%3A00-03%3A00'],
  ])('writes %j as %j', (query, text) => {
    expect(queryString(query as Record<string, unknown> | undefined)).toBe(text);
  });
});

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:4010/sandbox/v1/', 'http://127.0.0.1:4010/sandbox/v1'],
    ['https://api.example.com/v1?x=1#y', 'https://api.example.com/v1'],
    ['http://localhost:4010', 'http://localhost:4010'],
  ])('%s → %s', (given, normal) => {
    expect(normalizeBaseUrl(given)).toBe(normal);
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => normalizeBaseUrl('ftp://example.com/v1')).toThrow('must be http(s)');
  });

  it('refuses a URL with a user or password, without repeating it', () => {
    expect(() => normalizeBaseUrl('https://erp:hunter2@api.example.com/v1')).toThrow('Base URL must not carry a user or password');
  });
});

describe('idempotency keys', () => {
  it('generates keys in the spec format, different each time', () => {
    const keys = Array.from({ length: 50 }, generateIdempotencyKey);
    expect(new Set(keys).size).toBe(50);
    for (const key of keys) expect(isValidIdempotencyKey(key)).toBe(true);
  });

  it.each([['short', false], ['abc:def-ghi_jkl.mno', true], ['has space 123', false], ['x'.repeat(100), true], ['x'.repeat(101), false]])(
    '%s is valid: %s', (key, valid) => {
      expect(isValidIdempotencyKey(key)).toBe(valid);
    },
  );
});
