import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { cli, tempConfig, type CliResult } from '../helpers/cli-core.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { controlCall } from '../helpers/tokens.js';

// A team sandbox's operator makes each integrator's store and hands over its credential and store
// token with the CLI (DESIGN, Storage and the team sandbox: the store token is shown once).

const ADMIN = 'cli-stores-admin-token-largo';
let emu: TestEmulator;
let config: ReturnType<typeof tempConfig>;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator({ adminToken: ADMIN });
  config = tempConfig();
});
afterAll(async () => {
  await emu?.close();
  config?.cleanup();
});

const run = (args: string[], token: string = ADMIN): Promise<CliResult> =>
  cli(['--base-url', emu.url, ...args], { env: { ...config.env, MERCHANT_KIT_ADMIN_TOKEN: token }, timeoutMs: 60_000 });

const stateWith = async (token: string) => controlCall(emu, 'GET', '/state', token);

describe('merchant-kit emulator stores', () => {
  it('create --json answers the store, its integration, the credential and the store token; both work', async () => {
    const r = await run(['emulator', 'stores', 'create', '--name', 'Pizzería Ana', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created.store).toMatchObject({ name: 'Pizzería Ana', environment: 'test' });
    expect(created.store_token).toMatch(/^mks_/);
    const me = await request(`${emu.running.sandbox_base_url}/me`, 'GET', { credential: created.credential });
    expect(me.status).toBe(200);
    expect(me.body.data.store.id).toBe(created.store.id);
    const state = await stateWith(created.store_token);
    expect(state.status).toBe(200);
    const stores = state.body.data.environments.flatMap((e: { stores: { id: string }[] }) => e.stores.map((s) => s.id));
    expect(stores).toEqual([created.store.id]);
  });

  it('create prints each secret once with a note to hand them over, in the live environment when asked', async () => {
    const r = await run(['emulator', 'stores', 'create', '--environment', 'live', '--slug', 'bar-de-luis']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Environment:\s+live/);
    expect(r.stdout).toMatch(/Credential:\s+svk_live_\S+\.svs_live_\S+/);
    expect(r.stdout.match(/mks_\S+/g)).toHaveLength(1);
    expect(r.stderr).toContain('shown once: hand them to the integrator now');
  });

  it('token replaces the store token (the old one stops at once), and --revoke stops it', async () => {
    const created = JSON.parse((await run(['emulator', 'stores', 'create', '--json'])).stdout);
    const issued = await run(['emulator', 'stores', 'token', created.store.id, '--json']);
    expect(issued.code, issued.stderr).toBe(0);
    const fresh = JSON.parse(issued.stdout).store_token as string;
    expect(fresh).toMatch(/^mks_/);
    expect(fresh).not.toBe(created.store_token);
    expect((await stateWith(created.store_token)).status).toBe(401);
    expect((await stateWith(fresh)).status).toBe(200);
    const revoked = await run(['emulator', 'stores', 'token', created.store.id, '--revoke']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`The store token of ${created.store.id} is stopped.`);
    expect((await stateWith(fresh)).status).toBe(401);
  });

  it("refuses a store token's create with the line that names the admin token, and an unknown store with 404 (exit 1)", async () => {
    const created = JSON.parse((await run(['emulator', 'stores', 'create', '--json'])).stdout);
    const asStore = await run(['emulator', 'stores', 'create'], created.store_token);
    expect(asStore.code).toBe(1);
    expect(asStore.stderr).toContain('needs the admin token');
    const unknown = await run(['emulator', 'stores', 'token', 'str_01J00000000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/404|not_found/);
  });

  it('refuses an environment that is neither test nor live (exit 2)', async () => {
    const r = await run(['emulator', 'stores', 'create', '--environment', 'prod']);
    expect(r.code).toBe(2);
  });
});
