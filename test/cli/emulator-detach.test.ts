import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { ROOT } from '../helpers/cli.js';
import { buildPrivateCli, cli, cliEntry, SECRET_PATTERN, type CliResult } from '../helpers/cli-core.js';
import { request } from '../helpers/emulator.js';
import type { ReadyLine } from '../helpers/emulator-cli.js';
import { refusedPort } from '../helpers/ports.js';
import { processAlive, processGone, waitFor } from '../helpers/wait.js';

// `emulator start --detach`, `emulator wait`, `start --catalog` and the start-up banner, through the
// built CLI; the emulators it leaves running are stopped after each test.

const dirs: string[] = [];
const pids: number[] = [];
const MENU = join(ROOT, 'fixtures', 'catalog', 'asuncion-restaurant.json');

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mk-detach-'));
  dirs.push(dir);
  return dir;
}

const alive = processAlive;

const stopped = processGone;

/** `emulator start --detach --port 0 …args`: its result, the emulator's pid remembered for the clean-up. */
async function detach(args: string[]): Promise<CliResult> {
  const r = await cli(['emulator', 'start', '--detach', '--port', '0', ...args], { timeoutMs: 90_000 });
  const pid = /\(pid (\d+)\)/.exec(r.stdout)?.[1] ?? (r.stdout.startsWith('{') ? String(JSON.parse(r.stdout).pid) : undefined);
  if (pid) pids.push(Number(pid));
  return r;
}

async function detachJson(args: string[]): Promise<ReadyLine> {
  const r = await detach([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ReadyLine;
}


let removeBuild: () => void = () => undefined;
beforeAll(async () => {
  removeBuild = await buildPrivateCli();
});
// The tests share nothing but this file's lists (each its own port, data folder and emulator), and
// most of their time is a process starting or waiting: they run at once (issue 27), and the
// emulators they leave running are stopped together at the end.
afterAll(async () => {
  await Promise.all(pids.splice(0).map(async (pid) => {
    if (alive(pid)) process.kill(pid, 'SIGTERM');
    await stopped(pid);
  }));
  removeBuild();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('emulator start --detach', () => {
  it('prints the ready line and returns while the emulator runs on; its log is in the data folder (0600); emulator stop ends it', async () => {
    const data = tempDir();
    const ready = await detachJson(['--data', data]);
    expect(Object.keys(ready)).toEqual(['event', 'url', 'live_base_url', 'sandbox_base_url', 'admin_url', 'stores', 'pid', 'access_requests']);
    expect(alive(ready.pid)).toBe(true);
    expect((await request(`${ready.admin_url}/health`, 'GET')).body).toEqual({ data: { ok: true } });
    expect(statSync(join(data, 'emulator.log')).mode & 0o777).toBe(0o600);
    const stop = await cli(['emulator', 'stop', '--data', data]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(alive(ready.pid)).toBe(false);
    expect(readFileSync(join(data, 'emulator.log'), 'utf8')).toContain('SIGTERM: stopping the emulator');
  });

  it('without --json prints the banner with the log file and how to stop it; with --memory, by its pid', async () => {
    const r = await detach(['--memory', '--log-file', join(tempDir(), 'emu.log')]);
    expect(r.code, r.stderr).toBe(0);
    const pid = Number(/\(pid (\d+)\)/.exec(r.stdout)![1]);
    expect(r.stdout).toMatch(/^ {2}log: {10}\/.*emu\.log$/m);
    expect(r.stdout).toContain(`Running in the background. Stop it with: kill ${pid}`);
    expect(r.stdout).not.toContain('Ctrl+C');
  });

  it('a start that fails in the background: exit 1 with the emulator\'s own error line (not its --json object) and where its log is', async () => {
    const dir = tempDir();
    const broken = join(dir, 'broken.json.gz');
    writeFileSync(broken, 'not a bundle');
    const log = join(dir, 'failed.log');
    const r = await cli(['emulator', 'start', '--detach', '--memory', '--port', '0', '--from', broken, '--log-file', log], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: cannot start from ${broken}: .+ \\(the emulator did not start; its log: ${log}\\)\n$`));
    expect(readFileSync(log, 'utf8')).toContain('"code":"command_failed"');
  });

  // issue 27: a failed start leaves nothing behind.
  it('a start that fails in the background in a data folder it made takes the folder back, its log with it', async () => {
    const parent = tempDir();
    const broken = join(parent, 'broken.json.gz');
    writeFileSync(broken, 'not a bundle');
    const r = await cli(['emulator', 'start', '--detach', '--data', join(parent, 'data'), '--port', '0', '--from', broken], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: cannot start from .+ \(the emulator did not start\)\n$/);
    expect(readdirSync(parent)).toEqual(['broken.json.gz']);
  });

  it('Ctrl+C while it starts stops the emulator too: exit 1, nothing left running', async () => {
    const data = tempDir();
    // A menu big enough that the start takes a while (about a second), so the interrupt comes first.
    const menu = join(tempDir(), 'menu.json');
    const products = Array.from({ length: 5000 }, (_, i) => ({ external_id: `P-${i}`, name: `Producto ${i}`, category_external_id: 'C', price: '1000' }));
    writeFileSync(menu, JSON.stringify({ format: 'merchant-kit.catalog', version: 1, categories: [{ external_id: 'C', name: 'Todo' }], products }));
    const parent = spawn(process.execPath, [cliEntry(), 'emulator', 'start', '--detach', '--port', '0', '--data', data, '--catalog', menu], { cwd: ROOT });
    let stderr = '';
    parent.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => parent.on('close', resolve));
    // The log file is made in the same turn as the child and the interrupt handler.
    await waitFor(() => existsSync(join(data, 'emulator.log')), () => `${join(data, 'emulator.log')} (stderr: ${stderr})`);
    parent.kill('SIGINT');
    expect(await exited, stderr).toBe(1);
    expect(stderr).toContain('Interrupted: the emulator was stopped before it listened.');
    expect(readdirSync(data)).not.toContain('emulator.pid');
    // No emulator of that folder is left: stop finds none.
    expect((await cli(['emulator', 'stop', '--data', data])).code).toBe(1);
  });
});

describe.concurrent('emulator wait', () => {
  it('returns once the emulator at the base URL answers, even one started after it', async () => {
    // Until the waiter has knocked once, the port belongs to a server that hangs up on it.
    let knocks = 0;
    const door = createServer((socket) => (knocks++, socket.destroy()));
    await new Promise<void>((r) => door.listen(0, '127.0.0.1', () => r()));
    const port = (door.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}`;
    const waiting = cli(['--base-url', `${url}/sandbox/v1`, 'emulator', 'wait', '--timeout', '60s', '--json'], { timeoutMs: 90_000 });
    await waitFor(() => knocks > 0, () => 'a first try of emulator wait');
    await new Promise((r) => door.close(r));
    await detachJson(['--memory', '--port', String(port)]);
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer).toMatchObject({ ready: true, url });
    expect(answer.waited_ms).toBeGreaterThan(0);
  });

  it('nothing there: exit 1 once --timeout is over', async () => {
    const began = Date.now();
    const r = await cli(['--base-url', `http://127.0.0.1:${await refusedPort()}`, 'emulator', 'wait', '--timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error: no emulator at http:\/\/127\.0\.0\.1:\d+ within 1s \(nothing answered\)/);
    // After its --timeout of 1 s, not its default of 30 s (bounds a healthy machine never nears).
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - began).toBeLessThan(30_000);
  });
});

describe.concurrent('emulator start --catalog', () => {
  it('loads the menu into the test store before the ready line, in-process: no API call, the integration still inactive', async () => {
    const ready = await detachJson(['--memory', '--catalog', MENU]);
    const test = ready.stores.find((s) => s.environment === 'test')!;
    const state = (await request(`${ready.admin_url}/state`, 'GET')).body.data;
    const store = state.environments.find((e: any) => e.name === 'test').stores[0];
    expect(store.integrations[0].status).toBe('inactive');
    expect(store.accepting_orders).toBe(true);
    expect((await request(`${ready.admin_url}/logs?tail=10`, 'GET')).body.data.entries).toEqual([]);
    const menu = JSON.parse(readFileSync(MENU, 'utf8'));
    const products = await request(`${ready.sandbox_base_url}/catalog/products?limit=200`, 'GET', { credential: test.credential });
    expect(products.body.data.map((p: any) => p.external_id).sort()).toEqual(menu.products.map((p: any) => p.external_id).sort());
    const order = await request(`${ready.admin_url}/orders`, 'POST', { body: { store_id: test.store_id }, headers: { 'content-type': 'application/json' } });
    expect(order.status).toBe(201);
  });

  it('reads the CSV format too, and the banner says what it loaded', async () => {
    const r = await detach(['--memory', '--catalog', join(ROOT, 'fixtures', 'catalog', 'asuncion-restaurant.csv')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}catalog: {6}.*asuncion-restaurant\.csv in the test store \(7 categories, \d+ products\)$/m);
  });

  it('a file with problems: exit 2, each problem on its own line with file:line, no ready line', async () => {
    const dir = tempDir();
    const bad = join(dir, 'menu.json');
    writeFileSync(bad, JSON.stringify({
      format: 'merchant-kit.catalog', version: 1,
      categories: [{ external_id: 'BEB', name: 'Bebidas' }],
      products: [
        { external_id: 'AGUA', name: 'Agua', category_external_id: 'BEB', price: '5.000' },
        { external_id: 'COCA', name: '', category_external_id: 'BEB', price: '12000' },
      ],
    }, null, 2));
    const r = await cli(['emulator', 'start', '--memory', '--port', '0', '--json', '--catalog', bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/menu\.json:\d+: .*price/);
    expect(r.stderr).toMatch(/menu\.json:\d+: .*name/);
    // With --json the verdict is one JSON error object, the last line of stderr (issue 14).
    const verdict = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    expect(verdict).toMatchObject({ code: 'usage_error' });
    expect(verdict.message).toMatch(/^--catalog .*menu\.json: 2 problems \(above\); the emulator was not started$/);
  });

  it('a product whose category is neither in the file nor in the store: exit 2, the emulator stopped again', async () => {
    const bad = join(tempDir(), 'menu.json');
    writeFileSync(bad, JSON.stringify({ format: 'merchant-kit.catalog', version: 1, categories: [], products: [{ external_id: 'X', name: 'X', category_external_id: 'NOPE', price: '1000' }] }));
    const r = await cli(['emulator', 'start', '--memory', '--port', '0', '--json', '--catalog', bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/category NOPE is neither in the file nor in the store/);
  });
});

describe.concurrent('the start-up banner', () => {
  it('shows full credentials only on the start that made them; later starts show key ids and where to get one again', async () => {
    const data = tempDir();
    const first = await detach(['--data', data, '--clock', 'manual']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/credentials are shown once, here/);
    expect(first.stdout).toMatch(/credential svk_test_\w+\.svs_test_\w+/);
    expect(first.stdout).toMatch(/^ {2}clock: {8}manual: stands still until advanced \(merchant-kit emulator clock advance 15m\)$/m);
    const url = /listening on (\S+)/.exec(first.stdout)![1];
    expect(first.stdout).toContain(`  panel:        ${url}/_emulator/panel`);
    await request(`${url}/_emulator/clock/advance`, 'POST', { body: { seconds: 5400 }, headers: { 'content-type': 'application/json' } });
    expect((await cli(['emulator', 'stop', '--data', data])).code).toBe(0);

    const second = await detach(['--data', data, '--clock', 'manual']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toMatch(SECRET_PATTERN);
    expect(second.stdout).toMatch(/their credentials were shown when this data folder was created/);
    expect(second.stdout).toMatch(/^ +key id svk_test_\w+$/m);
    expect(second.stdout).toMatch(/^A new credential, shown once: merchant-kit emulator credentials issue \(--environment live for the live store\), or the panel's Credentials: http:\/\/127\.0\.0\.1:\d+\/_emulator\/panel$/m);
    expect(second.stdout).toMatch(/^ {2}clock: {8}manual, advanced 1h30m: stands still/m);
    // issue 27, day two: the command the banner names gives a credential that works, shown once.
    const secondUrl = /listening on (\S+)/.exec(second.stdout)![1];
    const issued = await cli(['--base-url', secondUrl, 'emulator', 'credentials', 'issue']);
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stdout).toMatch(/^svk_test_\w+\.svs_test_\w+\n$/);
    expect((await request(`${secondUrl}/sandbox/v1/me`, 'GET', { credential: issued.stdout.trim() })).status).toBe(200);
    expect((await cli(['emulator', 'stop', '--data', data])).code).toBe(0);

    // The ready line carries the credentials by design, on every start.
    const json = await detachJson(['--data', data]);
    expect(json.stores[0].credential).toMatch(/^svk_test_\w+\.svs_test_\w+$/);
    expect((await cli(['emulator', 'stop', '--data', data])).code).toBe(0);
  });

  it('--memory makes new credentials every time: shown in full; the system clock reads "real time"', async () => {
    const r = await detach(['--memory']);
    expect(r.stdout).toMatch(/credential svk_live_\w+\.svs_live_\w+/);
    expect(r.stdout).toMatch(/^ {2}clock: {8}system \(real time\)$/m);
    // Its log is a temporary file of its own, gone once it stops cleanly.
    const log = /^ {2}log: {10}(\S+)$/m.exec(r.stdout)![1];
    expect(existsSync(log)).toBe(true);
    const pid = Number(/\(pid (\d+)\)/.exec(r.stdout)![1]);
    process.kill(pid, 'SIGTERM');
    await stopped(pid);
    expect(existsSync(log)).toBe(false);
  });
});
