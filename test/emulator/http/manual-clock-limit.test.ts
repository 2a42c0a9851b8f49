import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// issue 27: under --clock manual the rate limits' minutes are the emulator's, and that clock stands
// still: `merchant-kit me` after 125 requests waited out Retry-After four times (2 min 29 s) and
// failed. Such a 429 says so in `X-Emulator-Clock: manual` (docs/emulator.md, a documented addition):
// the client then fails at once and the CLI names `emulator clock advance`.

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('X-Emulator-Clock: manual on a rate limit of the manual clock', () => {
  it('on the 121st call of a minute; never on the answers before it', async () => {
    emu = await startTestEmulator({ clock: 'manual' });
    for (let i = 0; i < 120; i++) {
      const ok = await emu.api('GET', '/me');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-emulator-clock')).toBeNull();
    }
    const limited = await emu.api('GET', '/me');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('x-emulator-clock')).toBe('manual');
  });

  it('on the per-IP block after 30 failed authentications', async () => {
    emu = await startTestEmulator({ clock: 'manual' });
    for (let i = 0; i < 30; i++) expect((await emu.api('GET', '/me', { credential: 'svk_test_wrong.svs_test_wrong' })).status).toBe(401);
    const blocked = await emu.api('GET', '/me');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('x-emulator-clock')).toBe('manual');
  });

  it('on the 11th catalog batch of a minute', async () => {
    emu = await startTestEmulator({ clock: 'manual' });
    const batch = (n: number) =>
      emu!.api('POST', '/catalog/batch', { body: { operations: [{ op: 'upsert_category', external_id: `CAT-${n}`, data: { name: `Categoría ${n}` } }] }, idempotencyKey: `batch-limit-${n}` });
    for (let n = 1; n <= 10; n++) expect((await batch(n)).status).toBe(200);
    const limited = await batch(11);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-emulator-clock')).toBe('manual');
  });

  it('not on the system clock, whose minutes end', async () => {
    emu = await startTestEmulator({ clock: 'system' });
    // The failures count in the system clock's minute: start them at a fresh one, or the minute could
    // end among the 30 and the block never come (a system clock may be moved, and stays a system clock).
    const toNextMinute = Math.ceil((60_000 - (Date.now() % 60_000)) / 1000);
    expect((await emu.control('POST', '/clock/advance', { seconds: toNextMinute })).status).toBe(200);
    for (let i = 0; i < 30; i++) await emu.api('GET', '/me', { credential: null });
    const blocked = await emu.api('GET', '/me');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('x-emulator-clock')).toBeNull();
  });

  it('not on an injected 429 fault: it is used up, and a retry gets through', async () => {
    emu = await startTestEmulator({ clock: 'manual' });
    expect((await emu.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/me', status: 429, retry_after: 1, times: 1 })).status).toBe(201);
    const faulted = await emu.api('GET', '/me');
    expect(faulted.status).toBe(429);
    expect(faulted.headers.get('x-emulator-clock')).toBeNull();
  });
});
