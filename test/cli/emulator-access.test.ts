import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { cli, tempConfig, type CliResult } from '../helpers/cli-core.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { controlCall } from '../helpers/tokens.js';

// `merchant-kit emulator access list|approve|deny|status` (DESIGN: The operator's public test
// environment): the operator with the admin token, the integrator with the claim secret from stdin or
// MERCHANT_KIT_CLAIM_SECRET, never a flag; --json everywhere.

const ADMIN = 'cli-access-admin-token-largo';
let emu: TestEmulator;
let config: ReturnType<typeof tempConfig>;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator({ adminToken: ADMIN, accessRequests: true });
  config = tempConfig();
});
afterAll(async () => {
  await emu?.close();
  config?.cleanup();
});

const run = (args: string[], options: { token?: string | null; input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> =>
  cli(['--base-url', emu.url, ...args], {
    env: { ...config.env, ...(options.token === null ? {} : { MERCHANT_KIT_ADMIN_TOKEN: options.token ?? ADMIN }), ...options.env },
    input: options.input,
    timeoutMs: 60_000,
  });

async function requestAccess(company: string): Promise<{ id: string; claim_secret: string }> {
  const made = await request(`${emu.running.admin_url}/access-requests`, 'POST', { body: { company, contact_email: 'it@example.com', system: 'ERP X' } });
  expect(made.status).toBe(201);
  return made.body.data;
}

describe('merchant-kit emulator access', () => {
  it('list shows the requests (a table, or the API data with --json); approve makes the store; status hands over once', async () => {
    const { id, claim_secret } = await requestAccess('Almacén Don Pepe');
    const table = await run(['emulator', 'access', 'list', '--status', 'pending']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+pending\\s+Almacén Don Pepe`));
    const json = JSON.parse((await run(['emulator', 'access', 'list', '--json'])).stdout);
    expect(json.find((r: { id: string }) => r.id === id)).toMatchObject({ status: 'pending', contact_email: 'it@example.com' });

    const pending = await run(['emulator', 'access', 'status', id, '--json'], { token: null, input: `${claim_secret}\n` });
    expect(pending.code, pending.stderr).toBe(0);
    expect(JSON.parse(pending.stdout)).toMatchObject({ id, status: 'pending', credential: null });

    const approved = await run(['emulator', 'access', 'approve', id, '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ id, status: 'approved', store_id: expect.stringMatching(/^str_/) });

    const first = await run(['emulator', 'access', 'status', id], { token: null, env: { MERCHANT_KIT_CLAIM_SECRET: claim_secret } });
    expect(first.code, first.stderr).toBe(0);
    const credential = /Credential:\s+(svk_test_\S+)/.exec(first.stdout)?.[1];
    expect(credential).toBeDefined();
    expect(first.stdout).toMatch(/Store token:\s+mks_[A-Za-z0-9]{40}/);
    expect(first.stderr).toMatch(/shown once/);
    expect((await request(`${emu.running.sandbox_base_url}/me`, 'GET', { credential })).status).toBe(200);
    // The claim secret never reaches the output.
    expect(first.stdout + first.stderr).not.toContain(claim_secret);

    const second = await run(['emulator', 'access', 'status', id, '--json'], { token: null, input: claim_secret });
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'approved', credential: null, store_token: null });
  }, 300_000);

  it('deny --reason answers the request denied; status shows the reason', async () => {
    const { id, claim_secret } = await requestAccess('Kiosco Luz');
    const denied = await run(['emulator', 'access', 'deny', id, '--reason', 'Not a customer of ours']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toMatch(/Reason:\s+Not a customer of ours/);
    const status = await run(['emulator', 'access', 'status', id], { token: null, input: claim_secret });
    expect(status.stdout).toMatch(/Status:\s+denied/);
    expect(status.stdout).toMatch(/Reason:\s+Not a customer of ours/);
  });

  it('status without a claim secret is a usage error (exit 2); a wrong one exits 1 with the API\'s not_found', async () => {
    const { id } = await requestAccess('Ferretería Sur');
    const none = await run(['emulator', 'access', 'status', id], { token: null, input: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no claim secret: set MERCHANT_KIT_CLAIM_SECRET or pipe it on stdin/);
    const wrong = await run(['emulator', 'access', 'status', id], { token: null, input: `mkc_${'x'.repeat(40)}` });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/not_found/);
    // There is no flag to pass it on the command line.
    const flag = await run(['emulator', 'access', 'status', id, '--claim-secret', 'mkc_x'], { token: null });
    expect(flag.code).toBe(2);
  });

  it('approve of a decided request exits 1 with 409 invalid_status_transition; without the admin token it says which token to pass', async () => {
    const { id } = await requestAccess('Bodega Norte');
    expect((await run(['emulator', 'access', 'approve', id])).code).toBe(0);
    const again = await run(['emulator', 'access', 'approve', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/invalid_status_transition/);
    const anonymous = await run(['emulator', 'access', 'list'], { token: null });
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/MERCHANT_KIT_ADMIN_TOKEN/);
    expect((await controlCall(emu, 'GET', '/access-requests?status=approved', ADMIN)).body.data.some((r: { id: string }) => r.id === id)).toBe(true);
  });
});
