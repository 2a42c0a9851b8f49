import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/cli.js';
import { request } from '../helpers/emulator.js';
import { emulatorCli } from '../helpers/emulator-cli.js';
import { adminTokenProblem } from '../../src/server/admin-token.js';

// DESIGN, Storage and the team sandbox: `--admin-token` takes 16 characters or more, without
// surrounding spaces (else exit 2). Issue 24 (low): `x` was taken, a lone space locked everybody
// out, and `''` left the control API open while the operator believed it closed.

const { start, track } = emulatorCli(undefined, { concurrent: true });
beforeAll(ensureBuilt, 120_000);

const REFUSED = [
  ['x', 'at least 16 characters'],
  [' ', 'at least 16 characters'],
  ['', 'at least 16 characters'],
  ['fifteen-chars-x', 'at least 16 characters'],
  [' a-token-of-twenty-chars', 'spaces'],
  ['a-token-of-twenty-chars\t', 'spaces'],
] as const;

// What a token may be is adminTokenProblem's, for every case; the built CLI's refusal (exit 2, one
// line, nothing started) is checked once for each kind of problem and each source (issue 27: a process per case).
describe('adminTokenProblem', () => {
  it.each(REFUSED)('refuses %j: %s', (token, message) => {
    expect(adminTokenProblem(token)).toContain(message);
  });

  it.each(['sixteen chars ok', 'a-token-of-twenty-chars', 'x'.repeat(200)])('takes %j', (token) => {
    expect(adminTokenProblem(token)).toBeNull();
  });
});

describe.concurrent('merchant-kit emulator start --admin-token', () => {
  it.each(REFUSED.filter(([token]) => token === '' || token === ' a-token-of-twenty-chars'))('refuses %j with exit 2, one line and nothing started', async (token, message) => {
    const cli = track(runCli(['emulator', 'start', '--json', '--port', '0', '--memory', '--admin-token', token]));
    expect((await cli.exited).code).toBe(2);
    expect(cli.lines).toEqual([]);
    expect(cli.stderr()).toContain(`--admin-token ${adminTokenProblem(token)}`);
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
