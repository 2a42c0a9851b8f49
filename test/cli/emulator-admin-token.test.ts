import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/cli.js';
import { request } from '../helpers/emulator.js';
import { emulatorCli } from '../helpers/emulator-cli.js';

// DESIGN, Storage and the team sandbox: `--admin-token` takes 16 characters or more, without
// surrounding spaces (else exit 2). Issue 24 (low): `x` was taken, a lone space locked everybody
// out, and `''` left the control API open while the operator believed it closed.

const { start, track } = emulatorCli();
beforeAll(ensureBuilt, 120_000);

describe('merchant-kit emulator start --admin-token', () => {
  it.each([
    ['x', 'at least 16 characters'],
    [' ', 'at least 16 characters'],
    ['', 'at least 16 characters'],
    ['fifteen-chars-x', 'at least 16 characters'],
    [' a-token-of-twenty-chars', 'spaces'],
    ['a-token-of-twenty-chars\t', 'spaces'],
  ])('refuses %j with exit 2, one line and nothing started', async (token, message) => {
    const cli = track(runCli(['emulator', 'start', '--json', '--port', '0', '--memory', '--admin-token', token]));
    expect((await cli.exited).code).toBe(2);
    expect(cli.lines).toEqual([]);
    expect(cli.stderr()).toContain(message);
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
  });

  it('refuses the same from MERCHANT_KIT_ADMIN_TOKEN, naming the variable', async () => {
    const cli = track(runCli(['emulator', 'start', '--json', '--port', '0', '--memory'], { MERCHANT_KIT_ADMIN_TOKEN: 'short' }));
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('MERCHANT_KIT_ADMIN_TOKEN');
  });

  it('takes a token of 16 characters, spaces inside included, and asks for it', async () => {
    const token = 'sixteen chars ok';
    expect(token).toHaveLength(16);
    const { ready } = await start(['--memory', '--admin-token', token]);
    expect((await request(`${ready.admin_url}/state`, 'GET')).status).toBe(401);
    expect((await request(`${ready.admin_url}/state`, 'GET', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
