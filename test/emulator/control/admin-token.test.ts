import { afterEach, describe, expect, it } from 'vitest';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { freshMinute, GuardClock } from '../../helpers/tokens.js';

// issue 15: wrong admin tokens were not rate-limited (300 tries in 0.81 s). The spec's 30
// authentication failures per minute per IP (Authentication 5) apply to the control API too.

const TOKEN = 'token-de-administracion-largo';
let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});


const health = (e: TestEmulator, token: string) => request(`${e.running.admin_url}/health`, 'GET', { headers: { authorization: `Bearer ${token}` } });

describe('the control API behind --admin-token', () => {
  it('answers 429 rate_limited with Retry-After after 30 wrong tokens from one IP, the right token included, until the minute ends', async () => {
    emu = await startTestEmulator({ adminToken: TOKEN });
    await freshMinute();
    for (let i = 0; i < 30; i++) expect((await health(emu, `wrong-${i}`)).status).toBe(401);
    for (const token of ['wrong-31', TOKEN]) {
      const res = await health(emu, token);
      expect(res.status).toBe(429);
      expect(res.body.error).toMatchObject({ code: 'rate_limited', request_id: expect.stringMatching(/^req_/) });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
  });

  // The others count on a guard clock whose minute starts with the test (the first keeps the real one).
  it('keeps the block with --limits off and a manual clock that nobody advances (it counts real minutes)', async () => {
    const guard = new GuardClock();
    emu = await startTestEmulator({ adminToken: TOKEN, limits: false, clock: 'manual', guardNow: guard.now });
    guard.freshMinute();
    const tries = await Promise.all(Array.from({ length: 300 }, (_, i) => health(emu!, `guess-${i}`)));
    expect(tries.filter((r) => r.status === 401)).toHaveLength(30);
    expect(tries.filter((r) => r.status === 429)).toHaveLength(270);
  });

  it('does not count the right token, nor the API\'s own failures', async () => {
    const guard = new GuardClock();
    emu = await startTestEmulator({ adminToken: TOKEN, guardNow: guard.now });
    guard.freshMinute();
    for (let i = 0; i < 40; i++) expect((await health(emu, TOKEN)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await emu.api('GET', '/me', { credential: 'svk_test_x.svs_test_y' })).status).toBe(401);
    for (let i = 0; i < 29; i++) expect((await health(emu, 'wrong')).status).toBe(401);
    expect((await health(emu, TOKEN)).status).toBe(200);
  });
});
