import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { realTimePassed } from '../helpers/wait.js';
import { request } from '../helpers/emulator.js';
import { emulatorCli } from '../helpers/emulator-cli.js';
import { bundledModules, writeImportLogHook } from '../helpers/loaded-modules.js';

// The tests share nothing (each its own emulator, port and folder; the two that only read a plain
// start's ready line and call it share that one) and most of their time is a start: they run at once
// (issue 27).
const { start, tempDir, track } = emulatorCli(undefined, { concurrent: true });

async function stop(cli: CliProcess, signal: NodeJS.Signals = 'SIGTERM') {
  cli.child.kill(signal);
  return cli.exited;
}

beforeAll(ensureBuilt);

/** One plain `--memory` start for the two tests that only read its ready line and call it (issue 27). */
let plain: ReturnType<typeof start> | undefined;
const plainStart = () => (plain ??= start(['--memory']));

describe.concurrent('merchant-kit emulator start --json', () => {
  it('prints exactly one JSON ready line with the DESIGN keys', async () => {
    const { cli, ready } = await plainStart();
    expect(Object.keys(ready)).toEqual(['event', 'url', 'live_base_url', 'sandbox_base_url', 'admin_url', 'stores', 'pid', 'access_requests']);
    expect(ready.pid).toBe(cli.child.pid);
    expect(ready.event).toBe('ready');
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.live_base_url).toBe(`${ready.url}/v1`);
    expect(ready.sandbox_base_url).toBe(`${ready.url}/sandbox/v1`);
    expect(ready.admin_url).toBe(`${ready.url}/_emulator`);
    expect(ready.stores.map((s) => s.environment)).toEqual(['test', 'live']);
    for (const s of ready.stores) {
      expect(Object.keys(s)).toEqual(['environment', 'store_id', 'integration_id', 'credential']);
      expect(s.store_id).toMatch(/^str_[0-9A-Z]{26}$/);
      expect(s.integration_id).toMatch(/^int_[0-9A-Z]{26}$/);
      expect(s.credential).toMatch(new RegExp(`^svk_${s.environment}_[A-Za-z0-9]+\\.svs_${s.environment}_[A-Za-z0-9]+$`));
    }
    await request(`${ready.admin_url}/health`, 'GET');
    expect(cli.lines).toHaveLength(1);
  });

  it('gives credentials that work on their own environment only', async () => {
    const { ready } = await plainStart();
    const test = ready.stores.find((s) => s.environment === 'test')!;
    const live = ready.stores.find((s) => s.environment === 'live')!;
    const sandboxMe = await request(`${ready.sandbox_base_url}/me`, 'GET', { credential: test.credential });
    expect(sandboxMe.status).toBe(200);
    expect(sandboxMe.body.data.integration.environment).toBe('test');
    expect(sandboxMe.body.data.store.id).toBe(test.store_id);
    const liveMe = await request(`${ready.live_base_url}/me`, 'GET', { credential: live.credential });
    expect(liveMe.status).toBe(200);
    expect(liveMe.body.data.integration.environment).toBe('live');
    expect((await request(`${ready.live_base_url}/me`, 'GET', { credential: test.credential })).status).toBe(401);
    expect((await request(`${ready.sandbox_base_url}/me`, 'GET', { credential: live.credential })).status).toBe(401);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s with exit code 0', async (signal) => {
    const { cli } = await start(['--memory']);
    const exit = await stop(cli, signal);
    expect(exit, cli.stderr()).toEqual({ code: 0, signal: null });
  });

  it('keeps stores, credentials and changes in --data across a restart', async () => {
    const dir = tempDir();
    const first = await start(['--data', dir]);
    const test = first.ready.stores.find((s) => s.environment === 'test')!;
    const changed = await request(`${first.ready.admin_url}/integrations/${test.integration_id}`, 'PATCH', {
      body: { settings: { ack_alert_minutes: 42 } },
    });
    expect(changed.status).toBe(200);
    expect((await stop(first.cli)).code).toBe(0);
    // spec: Authentication 3 — the demo credentials are kept for the owner only, beside the digests.
    expect(statSync(join(dir, 'seed-credentials.json')).mode & 0o777).toBe(0o600);

    const second = await start(['--data', dir]);
    expect(second.ready.stores).toEqual(first.ready.stores);
    const me = await request(`${second.ready.sandbox_base_url}/me`, 'GET', { credential: test.credential });
    expect(me.status).toBe(200);
    expect(me.body.data.integration.settings.ack_alert_minutes).toBe(42);
  });

  it('never moves the clock backwards across a restart with --data', async () => {
    const dir = tempDir();
    const first = await start(['--data', dir, '--clock', 'manual']);
    const advanced = await request(`${first.ready.admin_url}/clock/advance`, 'POST', { body: { seconds: 7200 } });
    expect(advanced.body.data.offset_seconds).toBe(7200);
    const before = Date.parse(advanced.body.data.now);
    expect((await stop(first.cli)).code).toBe(0);

    const second = await start(['--data', dir, '--clock', 'manual']);
    const clock = await request(`${second.ready.admin_url}/clock`, 'GET');
    expect(clock.body.data.offset_seconds).toBe(7200);
    expect(Date.parse(clock.body.data.now)).toBeGreaterThanOrEqual(before);
  });

  it('refuses --host 0.0.0.0 without --admin-token with a clear message and a non-zero exit', async () => {
    const cli = runCli(['emulator', 'start', '--json', '--port', '0', '--memory', '--host', '0.0.0.0']);
    track(cli);
    const { code } = await cli.exited;
    expect(code).not.toBe(0);
    expect(cli.stderr()).toContain('--admin-token');
    expect(cli.lines).toEqual([]);
  });

  // Regression: Number('') is 0 and Number('4e3') is 4000, so these started an emulator.
  it.each([[['--port', '']], [['--port', '4e3']], [['--seed', '0x10']]])('refuses %j with exit 2 before starting anything', async (args) => {
    const cli = track(runCli(['emulator', 'start', '--json', '--memory', ...args]));
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('must be an integer');
    expect(cli.lines).toEqual([]);
  });

  // issue 15: a damaged file of the data folder started silently (time moved back, a second demo store).
  it.each([
    ['clock.json', '', /the clock file .*clock\.json is damaged \(it is empty\)/],
    ['seed-credentials.json', '{"oops"', /the seed file .*seed-credentials\.json is damaged \(not valid JSON\)/],
  ])('refuses a damaged %s with one line naming it, exit 1 and no ready line', async (file, text, line) => {
    const dir = tempDir();
    const first = await start(['--data', dir]);
    expect((await stop(first.cli)).code).toBe(0);
    writeFileSync(join(dir, file), text);
    const cli = track(runCli(['emulator', 'start', '--json', '--port', '0', '--data', dir]));
    expect((await cli.exited).code).toBe(1);
    expect(cli.lines).toEqual([]);
    expect(cli.stderr().trim().split('\n')).toEqual([expect.stringMatching(line)]);
  });

  it('with --admin-token answers the control API 401 without the bearer token and 200 with it', async () => {
    const { ready } = await start(['--memory', '--admin-token', 'secreto-de-prueba']);
    const without = await request(`${ready.admin_url}/state`, 'GET');
    expect(without.status).toBe(401);
    expect(without.body.error.code).toBe('unauthenticated');
    const wrong = await request(`${ready.admin_url}/state`, 'GET', { headers: { authorization: 'Bearer otro' } });
    expect(wrong.status).toBe(401);
    const withToken = await request(`${ready.admin_url}/state`, 'GET', { headers: { authorization: 'Bearer secreto-de-prueba' } });
    expect(withToken.status).toBe(200);
    // The API itself still takes integration credentials, not the admin token.
    const test = ready.stores.find((s) => s.environment === 'test')!;
    expect((await request(`${ready.sandbox_base_url}/me`, 'GET', { credential: test.credential })).status).toBe(200);
  });

  it('with --clock manual keeps time still until advanced', async () => {
    const { ready } = await start(['--memory', '--clock', 'manual']);
    const a = await request(`${ready.admin_url}/clock`, 'GET');
    await realTimePassed(Date.now(), 20);
    const b = await request(`${ready.admin_url}/clock`, 'GET');
    expect(b.body.data.now).toBe(a.body.data.now);
    expect(a.body.data.mode).toBe('manual');
    const moved = await request(`${ready.admin_url}/clock/advance`, 'POST', { body: { seconds: 3600 } });
    expect(Date.parse(moved.body.data.now) - Date.parse(a.body.data.now)).toBe(3600_000);
  });

  it('with --limits off does not block after 30 authentication failures', async () => {
    const { ready } = await start(['--memory', '--limits', 'off']);
    for (let i = 0; i < 31; i++) await request(`${ready.sandbox_base_url}/me`, 'GET');
    expect((await request(`${ready.sandbox_base_url}/me`, 'GET')).status).toBe(401);
  });

  // issue 27: what a start compiles. The build's chunks name the modules they hold in the comments
  // esbuild writes (`// emulator/panel/page.ts`); a resolve hook logs every file the process loads.
  it('loads neither the panel page, the access pages, the observer, checks/, the export, the menu reader nor fastify\'s schema compilers until asked', async () => {
    const dir = tempDir();
    const log = join(dir, 'loaded.txt');
    writeFileSync(log, '');
    const register = writeImportLogHook(dir);
    const modules = () => bundledModules(readFileSync(log, 'utf8'));
    const { ready } = await start(['--memory'], { NODE_OPTIONS: `--import ${register}`, MK_IMPORTS_LOG: log });
    const atStart = modules();
    expect(atStart).toContain('emulator/app.ts');
    expect(atStart).toContain('emulator/control/panel.ts');
    const lazy = /^(emulator\/panel\/(page|script[^/]*|styles)\.ts|emulator\/access\/page\.ts|emulator\/homologation\/(observe|session)\.ts|emulator\/bundle\/export\.ts|checks\/|src\/cli\/commands\/emulator\/start-catalog\.ts|node_modules\/(csv-parse|ajv|ajv-formats|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler|light-my-request)\/|node_modules\/fast-json-stringify\/index\.js)/;
    // checks/types.ts is the list of check ids the `homologate` command registers its options with.
    expect(atStart.filter((path) => lazy.test(path) && path !== 'checks/types.ts')).toEqual([]);
    // Asked for, they load (and answer in full: the next test).
    expect((await fetch(`${ready.admin_url}/panel`)).status).toBe(200);
    expect(modules()).toContain('emulator/panel/page.ts');
  });

  // issue 27: the panel's page and assets, the access form, the observer's report and the export load
  // with their first request instead of at start. Their first requests, all at once, in a process
  // that has served nothing else, answer in full.
  it('answers the first requests of the routes whose code loads on demand (panel, access form, observer, export)', async () => {
    const admin = { authorization: 'Bearer secreto-de-prueba' };
    const { ready } = await start(['--memory', '--admin-token', 'secreto-de-prueba', '--access-requests', 'open']);
    const test = ready.stores.find((s) => s.environment === 'test')!;
    const [page, script, styles, icon, form, form2, report, exported] = await Promise.all([
      fetch(`${ready.admin_url}/panel`),
      fetch(`${ready.admin_url}/panel/app.js`),
      fetch(`${ready.admin_url}/panel/app.css`),
      fetch(`${ready.admin_url}/panel/favicon.svg`),
      fetch(`${ready.url}/access`),
      fetch(`${ready.url}/access?lang=en`),
      request(`${ready.admin_url}/homologation/${test.integration_id}`, 'GET', { headers: admin }),
      fetch(`${ready.admin_url}/export`, { headers: admin }),
    ]);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await page.text()).toMatch(/<script src="[^"]*app\.js"/);
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await script.text()).length).toBeGreaterThan(1000);
    expect([styles.status, styles.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    expect((await styles.text()).length).toBeGreaterThan(100);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await icon.text()).toMatch(/<svg/);
    for (const answer of [form, form2]) {
      expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      expect(answer.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(await answer.text()).toMatch(/<form[^>]*method="post"/i);
    }
    expect(report.status).toBe(200);
    expect(report.body.data).toMatchObject({ mode: 'observer', complete: false });
    expect([exported.status, exported.headers.get('content-type')]).toEqual([200, 'application/gzip']);
    expect(exported.headers.get('x-bundle-sha256')).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(await exported.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });
});
