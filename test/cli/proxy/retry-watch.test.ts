import { describe, expect, it } from 'vitest';
import { RetryWatch } from '../../../src/cli/commands/proxy/retry-watch.js';

describe('RetryWatch', () => {
  function watch() {
    let now = 1_000_000;
    const w = new RetryWatch(() => now);
    return { w, advance: (ms: number) => (now += ms) };
  }

  it('names a retry that came before Retry-After ran out', () => {
    const { w, advance } = watch();
    w.onResponse('k', 429, '3');
    advance(1000);
    expect(w.onRequest('k')).toMatchObject({ rule: 'retry_after_ignored', message: expect.stringContaining('Retry-After was 3 s') });
  });

  // spec: Errors — 409 request_in_progress and batch_in_progress carry Retry-After too.
  it('names a retry that came before the Retry-After of a 409 request_in_progress or batch_in_progress', () => {
    const { w, advance } = watch();
    w.onResponse('k', 409, '2');
    advance(500);
    expect(w.onRequest('k')).toMatchObject({ rule: 'retry_after_ignored', message: expect.stringContaining('after a 409 whose Retry-After was 2 s') });
  });

  it('accepts a retry after the wait, and the same wait only once', () => {
    const { w, advance } = watch();
    w.onResponse('k', 503, '2');
    advance(2000);
    expect(w.onRequest('k')).toBeUndefined();
    expect(w.onRequest('k')).toBeUndefined();
  });

  it.each([
    [200, '5'],
    [500, '5'],
    [429, undefined],
    [429, 'Wed, 21 Oct 2015 07:28:00 GMT'],
  ])('sets no wait for status %s with Retry-After %s', (status, retryAfter) => {
    const { w } = watch();
    w.onResponse('k', status, retryAfter);
    expect(w.onRequest('k')).toBeUndefined();
  });

  it('keeps waits apart per operation', () => {
    const { w } = watch();
    w.onResponse('a', 429, '10');
    expect(w.onRequest('b')).toBeUndefined();
    expect(w.onRequest('a')).toBeDefined();
  });
});
