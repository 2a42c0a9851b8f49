import { afterEach, describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '../../../emulator/net/trusted-proxies.js';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { GuardClock } from '../../helpers/tokens.js';

// --trust-proxy: behind a team sandbox's load balancer every request comes from the balancer's
// address, so one integrator's 30 wrong credentials would block every other for the minute. The
// balancers named by --trust-proxy have their X-Forwarded-For believed; nobody else's.

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const WRONG = 'svk_test_wrong.svs_test_wrong';
const ADMIN = 'an-admin-token-of-the-sandbox-0123456789';
const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** 30 failed authentications as sent through a balancer for `ip`. */
async function failThirty(e: TestEmulator, ip: string | ((i: number) => string)): Promise<void> {
  for (let i = 0; i < 30; i++) {
    const res = await e.api('GET', '/me', { credential: WRONG, headers: from(typeof ip === 'string' ? ip : ip(i)) });
    expect(res.status).toBe(401);
  }
}


describe('the per-IP limits behind a load balancer (--trust-proxy)', () => {
  it('counts the client that a trusted balancer names: one client blocked, another served', async () => {
    emu = await startTestEmulator({ trustProxy: ['127.0.0.1', '::1'] });
    await failThirty(emu, '203.0.113.7');
    const blocked = await emu.api('GET', '/me', { headers: from('203.0.113.7') });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect((await emu.api('GET', '/me', { headers: from('203.0.113.8') })).status).toBe(200);
    expect((await emu.api('GET', '/me', { credential: WRONG, headers: from('203.0.113.8') })).status).toBe(401);
    // The nearest untrusted address is the client: what a client wrote before the balancer's own is not believed.
    expect((await emu.api('GET', '/me', { headers: from('198.51.100.1, 203.0.113.7') })).status).toBe(429);
  });

  it('ignores X-Forwarded-For without --trust-proxy: a client cannot leave its block by writing the header', async () => {
    emu = await startTestEmulator();
    await failThirty(emu, (i) => `203.0.113.${i + 1}`);
    expect((await emu.api('GET', '/me', { headers: from('198.51.100.99') })).status).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer that is not one of the trusted balancers', async () => {
    emu = await startTestEmulator({ trustProxy: ['10.0.0.0/8'] });
    await failThirty(emu, (i) => `203.0.113.${i + 1}`);
    expect((await emu.api('GET', '/me', { headers: from('198.51.100.99') })).status).toBe(429);
  });

  it('counts wrong control-API tokens per client too', { timeout: 300_000 }, async () => {
    const guard = new GuardClock();
    emu = await startTestEmulator({ adminToken: ADMIN, trustProxy: ['127.0.0.1', '::1'], guardNow: guard.now });
    guard.freshMinute();
    const health = (token: string, ip: string) => request(`${emu!.running.admin_url}/health`, 'GET', { headers: { authorization: `Bearer ${token}`, ...from(ip) } });
    for (let i = 0; i < 30; i++) expect((await health(`wrong-${i}`, '203.0.113.7')).status).toBe(401);
    expect((await health(ADMIN, '203.0.113.7')).status).toBe(429);
    expect((await health(ADMIN, '203.0.113.8')).status).toBe(200);
  });

  it('refuses an entry that is not an IP address or a CIDR range, naming it', async () => {
    for (const bad of ['balancer.internal', '10.0.0.0/33', '::1/129', '10.0.0.1/8/1', '10.0.0/8']) {
      await expect(startTestEmulator({ trustProxy: [bad] }), bad).rejects.toThrow(`--trust-proxy: "${bad}" is not an IP address or a CIDR range`);
    }
  });
});

describe('parseTrustedProxies', () => {
  it.each([
    [['127.0.0.1'], ['127.0.0.1']],
    [['10.0.0.0/8,192.168.1.10'], ['10.0.0.0/8', '192.168.1.10']],
    [[' ::1 , fd00::/8 '], ['::1', 'fd00::/8']],
    [['10.0.0.1', '10.0.0.2'], ['10.0.0.1', '10.0.0.2']],
    [[''], []],
  ])('reads %j as %j', (input, expected) => {
    expect(parseTrustedProxies(input)).toEqual(expected);
  });
});
