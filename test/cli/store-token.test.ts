import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { cli, tempConfig, type CliResult } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { homologationScratch, runToEnd } from '../helpers/homologation.js';
import { driveTasks, startReferenceErp } from '../helpers/reference-erp.js';
import { seedMenu } from '../helpers/orders.js';
import { controlCall } from '../helpers/tokens.js';
import { inParallel } from '../helpers/parallel.js';

// DESIGN, Storage and the team sandbox: a team hands each integrator their store's token, never the
// admin one. The CLI's emulator commands and `homologate --observe` take it in --admin-token or
// MERCHANT_KIT_ADMIN_TOKEN: enough for the integrator's own work (simulate orders on their store,
// tail their requests, open their panel, observe their integration); the sandbox's tools answer one
// clear line. The token is never printed.

const ADMIN = 'cli-admin-token-largo';
let emu: TestEmulator;
let config: ReturnType<typeof tempConfig>;
let mine: { storeId: string; integrationId: string; credential: string; token: string };
let theirs: { storeId: string; token: string; order: string };

async function made(body: Record<string, unknown>) {
  const res = await controlCall(emu, 'POST', '/stores', ADMIN, { environment: 'test', ...body });
  expect(res.status).toBe(201);
  return res.body.data;
}

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator({ adminToken: ADMIN, clock: 'system' });
  config = tempConfig();
  const a = await made({ name: 'Integrador A' });
  const b = await made({ name: 'Integrador B' });
  await seedMenu(emu, a.credential);
  await seedMenu(emu, b.credential);
  const order = await controlCall(emu, 'POST', '/orders', ADMIN, { store_id: b.store.id, scenario: 'pickup_invoice' });
  mine = { storeId: a.store.id, integrationId: a.integration.id, credential: a.credential, token: a.store_token };
  theirs = { storeId: b.store.id, token: b.store_token, order: order.body.data.id };
});
afterAll(async () => {
  await emu?.close();
  config?.cleanup();
});

/** The CLI as integrator A: their credential, their store token in the environment (or in --admin-token). */
const asA = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  cli(args, {
    env: { ...config.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: mine.credential, MERCHANT_KIT_ADMIN_TOKEN: mine.token, ...extra },
    timeoutMs: 60_000,
  });

const printed: string[] = [];
function keep(r: CliResult): CliResult {
  printed.push(r.stdout, r.stderr);
  return r;
}

describe("the CLI with a store token", () => {
  it('simulates orders on its store (simulate order), and changes them (simulate status, paid)', async () => {
    const r = keep(await asA(['simulate', 'order', '--count', '2', '--scenario', 'pickup_invoice', '--json', '--verbose']));
    expect(r.code, r.stderr).toBe(0);
    const orders = JSON.parse(r.stdout) as { id: string; store_id: string }[];
    expect(orders.map((o) => o.store_id)).toEqual([mine.storeId, mine.storeId]);
    const accepted = keep(await asA(['simulate', 'status', orders[0]!.id, 'accepted', '--json']));
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout).status).toBe('accepted');
    // The same token given as a flag instead of the environment.
    const paid = keep(await asA(['simulate', 'paid', orders[1]!.id, '--admin-token', mine.token, '--json'], { MERCHANT_KIT_ADMIN_TOKEN: '' }));
    expect(paid.code, paid.stderr).toBe(0);
  });

  it('issues a new credential for its own store (emulator credentials issue), and not for another store\'s integration', async () => {
    const r = keep(await asA(['emulator', 'credentials', 'issue', '--json']));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ integration_id: mine.integrationId, credential: expect.stringMatching(/^svk_test_/) });
    const other = keep(await asA(['emulator', 'credentials', 'issue', '--integration', 'int_01M8ZZZZZZZZZZZZZZZZZZZZZZ']));
    expect(other.code).toBe(1);
    expect(other.stderr).toBe('error: no integration int_01M8ZZZZZZZZZZZZZZZZZZZZZZ in this emulator that your store token opens\n');
  });

  it("answers another store's order as not found (exit 1), and changes nothing", async () => {
    const r = keep(await asA(['simulate', 'status', theirs.order, 'accepted']));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not_found/);
    const order = await controlCall(emu, 'GET', `/orders/${theirs.order}`, ADMIN);
    expect(order.body.data.status).toBe('pending');
  });

  // issue 27: export and the automatic homologate had wordings of their own; one line for all, as emulator.md writes it.
  it("refuses the sandbox's tools with the one line naming the admin token (exit 1): reset, clock advance, faults, chaos, stores, export, the automatic homologate", async () => {
    const scratch = homologationScratch();
    const line = `error: the emulator at ${emu.running.url} refused the control call (403 insufficient_scope): a store token opens only its own store's routes; this one changes or shows the whole sandbox and needs the admin token`;
    const cases = [
      ['emulator', 'reset'],
      ['emulator', 'clock', 'advance', '1m'],
      ['emulator', 'faults', 'add', '--path', '/sandbox/v1/me', '--status', '503'],
      ['emulator', 'chaos', 'set', '--duplicate-rate', '0.5'],
      ['emulator', 'stores', 'create'],
      ['emulator', 'export', '--out', join(scratch.dir, 'state.json.gz')],
      ['homologate', '--report-dir', join(scratch.dir, 'reports'), '--format', 'terminal'],
    ];
    // Each is refused before it changes anything: they run at once (issue 27).
    const results = await inParallel(cases, async (args) => keep(await asA(args)));
    for (const [i, args] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n').at(-1), args.join(' ')).toBe(line);
    }
    // Nothing was reset: the other store is still there.
    expect((await controlCall(emu, 'GET', `/orders/${theirs.order}`, ADMIN)).status).toBe(200);
  });

  it("reads the clock, waits for the emulator, tails its own store's requests and opens its panel", async () => {
    expect(keep(await asA(['emulator', 'clock'])).code).toBe(0);
    const waited = keep(await asA(['emulator', 'wait', '--timeout', '10s']));
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).not.toMatch(/refused|asks for a token/);
    const logs = keep(await asA(['emulator', 'logs', 'tail', '--last', '200', '--no-follow', '--json']));
    expect(logs.code, logs.stderr).toBe(0);
    const entries = logs.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { store_id: string | null });
    expect(entries.length).toBeGreaterThan(0);
    expect(new Set(entries.map((e) => e.store_id))).toEqual(new Set([mine.storeId]));
    const panel = keep(await asA(['panel', '--no-open', '--json']));
    expect(panel.code, panel.stderr).toBe(0);
    expect(JSON.parse(panel.stdout)).toEqual({ url: `${emu.url}/_emulator/panel`, opened: false });
  });

  it('says a wrong token was refused, naming both kinds (exit 1)', async () => {
    const r = keep(await asA(['emulator', 'clock'], { MERCHANT_KIT_ADMIN_TOKEN: 'mks_' + 'z'.repeat(40) }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/401 unauthenticated\); pass --admin-token or set MERCHANT_KIT_ADMIN_TOKEN \(its admin token, or your store's token\)/);
  });

  it('observes its own integration with homologate --observe and certifies it', async () => {
    const erp = await startReferenceErp(emu.running.sandbox_base_url, mine.credential);
    const driver = driveTasks(emu.running.admin_url, mine.integrationId, erp.operator, 100, mine.token);
    try {
      const scratch = homologationScratch();
      const r = await runToEnd(
        ['homologate', '--observe', '--integration', mine.integrationId, '--timeout', '40', '--report-dir', scratch.reports],
        { ...scratch.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: mine.credential, MERCHANT_KIT_ADMIN_TOKEN: mine.token },
      );
      keep(r);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
      expect(report).toMatchObject({ mode: 'observer', complete: true, summary: { certified: true } });
      expect(driver.errors).toEqual([]);
      expect(erp.errors).toEqual([]);
    } finally {
      await driver.stop();
      await erp.close();
    }
    // Another store's integration is not there for this token.
    const scratch = homologationScratch();
    const other = keep(await runToEnd(
      ['homologate', '--observe', '--integration', 'int_01J00000000000000000000000', '--timeout', '5', '--report-dir', scratch.reports],
      { ...scratch.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: mine.credential, MERCHANT_KIT_ADMIN_TOKEN: mine.token },
    ));
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/not_found/);
  });

  it('never printed the store token', () => {
    expect(printed.length).toBeGreaterThan(0);
    for (const text of printed) {
      expect(text).not.toContain(mine.token);
      expect(text).not.toContain(mine.token.slice(4));
    }
  });
});
