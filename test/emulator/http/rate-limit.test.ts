import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, newStore } from '../../helpers/stores.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** Seconds to the end of the current fixed minute of the emulator's clock. */
function secondsToMinuteEnd(e: TestEmulator): number {
  const now = e.running.emulator.clock.now();
  return Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000));
}

/** Moves the manual clock to the first second of the next minute. */
async function nextMinute(e: TestEmulator) {
  await e.control('POST', '/clock/advance', { seconds: secondsToMinuteEnd(e) });
}

describe('authentication failures per IP (spec: Authentication 5)', () => {
  it('answers 429 rate_limited with Retry-After after 30 failures until the minute ends', async () => {
    emu = await startTestEmulator();
    for (let i = 0; i < 30; i++) {
      const res = await emu.api('GET', '/me', { credential: 'svk_test_wrong.svs_test_wrong' });
      expect(res.status).toBe(401);
    }
    const blocked = await emu.api('GET', '/me');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.headers.get('retry-after')).toBe(String(secondsToMinuteEnd(emu)));
    expect(blocked.body.error.request_id).toBe(blocked.headers.get('x-request-id'));
    // The live environment shares the IP's count.
    expect((await emu.liveApi('GET', '/me')).status).toBe(429);

    await emu.control('POST', '/clock/advance', { seconds: secondsToMinuteEnd(emu) - 1 });
    expect((await emu.api('GET', '/me')).status).toBe(429);
    await nextMinute(emu);
    expect((await emu.api('GET', '/me')).status).toBe(200);
  });

  it('lets 29 failures through without blocking valid calls', async () => {
    emu = await startTestEmulator();
    for (let i = 0; i < 29; i++) await emu.api('GET', '/me', { credential: null });
    expect((await emu.api('GET', '/me')).status).toBe(200);
    expect((await emu.api('GET', '/me', { credential: null })).status).toBe(401);
  });
});

describe('requests per integration (spec: Limits, 120 per minute)', () => {
  it('counts down X-RateLimit-Remaining and answers the 121st call 429 with Retry-After', async () => {
    emu = await startTestEmulator();
    const made = await newStore(emu);
    const call = asStore(emu, made);
    for (let i = 1; i <= 120; i++) {
      const res = await call('GET', '/me');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('120');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(120 - i));
    }
    const limited = await call('GET', '/store');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('120');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('retry-after')).toBe(String(secondsToMinuteEnd(emu)));

    // Another integration has its own count.
    expect((await emu.api('GET', '/me')).status).toBe(200);
    await nextMinute(emu);
    const again = await call('GET', '/me');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('119');
  });

  it('puts the headers on authenticated error responses too', async () => {
    emu = await startTestEmulator();
    const res = await emu.api('PATCH', '/store', { body: { nope: true } });
    expect(res.status).toBe(422);
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('119');
  });
});

describe('limits: false (--limits off)', () => {
  it('lifts the per-integration and per-IP limits', async () => {
    emu = await startTestEmulator({ limits: false });
    for (let i = 0; i < 125; i++) expect((await emu.api('GET', '/me')).status).toBe(200);
    for (let i = 0; i < 35; i++) expect((await emu.api('GET', '/me', { credential: null })).status).toBe(401);
    expect((await emu.api('GET', '/me')).status).toBe(200);
  });

  it('still enforces the 5 MB body limit', async () => {
    emu = await startTestEmulator({ limits: false });
    const big = `{"accepting_orders":false,"x":"${'x'.repeat(5 * 1024 * 1024)}"}`;
    const res = await emu.api('PATCH', '/store', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
  });
});
