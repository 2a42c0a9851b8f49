import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { buildPrivateCli, cli, cliEntry, tempConfig, type CliResult } from '../helpers/cli-core.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { waitFor } from '../helpers/wait.js';
import { inParallel } from '../helpers/parallel.js';

// The sandbox tools from the CLI (`emulator clock|faults|chaos|logs tail`, `panel`), as a subprocess
// against an in-process emulator (manual clock); each effect is checked through the control API.

let emu: TestEmulator;
let config: ReturnType<typeof tempConfig>;
let env: NodeJS.ProcessEnv;

const run = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> => cli(args, { env: { ...env, ...extra } });

async function json<T = any>(args: string[]): Promise<T> {
  const r = await run([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

let removeBuild: () => void = () => undefined;
beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  emu = await startTestEmulator();
  config = tempConfig();
  env = { ...config.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url };
});
afterEach(async () => {
  await emu.control('DELETE', '/faults');
  await emu.control('DELETE', '/webhooks/chaos');
});
afterAll(async () => {
  removeBuild();
  await emu?.close();
  config?.cleanup();
});

const clock = async () => (await emu.control('GET', '/clock')).body.data;

describe('emulator clock', () => {
  it('shows the time, the mode and how far it was advanced; --json is GET /_emulator/clock', async () => {
    const r = await run(['emulator', 'clock']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Now:\s+\d{4}-\d{2}-\d{2}T/m);
    expect(r.stdout).toMatch(/^Mode:\s+manual: stands still until advanced/m);
    const shown = await json(['emulator', 'clock', 'show']);
    expect(shown).toEqual(await clock());
  });

  // The durations themselves are durationOption's (test/cli/duration.unit.test.ts, every form): one
  // advance and the usage errors' two kinds go through the built CLI (issue 27: a process per form).
  it('advance 1h30m moves the clock 5400 seconds', async () => {
    const before = (await clock()).offset_seconds;
    const printed = await json(['emulator', 'clock', 'advance', '1h30m']);
    expect(printed.offset_seconds).toBe(before + 5400);
    expect((await clock()).offset_seconds).toBe(before + 5400);
  });

  it('a text that is not a duration is a usage error (exit 2) and the clock stays', async () => {
    const before = await clock();
    const cases = ['1.5h', '-5m'];
    const results = await Promise.all(cases.map((duration) => run(['emulator', 'clock', 'advance', duration])));
    for (const [i, duration] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, duration).toBe(2);
      // commander reads `-5m` as an unknown option: a usage error too.
      expect(r.stderr, duration).toMatch(duration === '-5m' ? /unknown option/ : /duration such as 90s, 15m/);
    }
    expect(await clock()).toEqual(before);
  });
});

describe('emulator faults', () => {
  it('add arms a fault the API then answers with; list shows it with the uses left; clear removes it', async () => {
    const added = await json(['emulator', 'faults', 'add', '--method', 'get', '--path', '/sandbox/v1/orders/*', '--status', '503', '--retry-after', '5', '--times', '2']);
    expect(added).toEqual({ method: 'GET', path: '/sandbox/v1/orders/*', status: 503, code: 'maintenance', retry_after: 5, delay_ms: 0, times: 2 });
    const failed = await emu.api('GET', '/orders/ord_01M00000000000000000000000');
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    const listed = await run(['emulator', 'faults', 'list']);
    expect(listed.stdout).toMatch(/GET\s+\/sandbox\/v1\/orders\/\*\s+503\s+maintenance\s+5\s+0\s+1/);
    const cleared = await run(['emulator', 'faults', 'clear']);
    expect(cleared.stdout.trim()).toBe('Cleared 1 fault.');
    expect((await emu.control('GET', '/faults')).body.data).toEqual([]);
    expect((await run(['emulator', 'faults'])).stdout.trim()).toBe('No faults armed.');
  });

  it('--delay-ms alone slows the call down and lets it run; --code sends the code asked for', async () => {
    await json(['emulator', 'faults', 'add', '--path', '/sandbox/v1/me', '--delay-ms', '300']);
    const began = Date.now();
    expect((await emu.api('GET', '/me')).status).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(250);
    await json(['emulator', 'faults', 'add', '--path', '/sandbox/v1/me', '--status', '502', '--code', 'bad_gateway']);
    expect((await emu.api('GET', '/me')).body.error.code).toBe('bad_gateway');
  });

  it('a fault the API refuses is its 422 with the field, exit 1; a missing --path is exit 2', async () => {
    const r = await run(['emulator', 'faults', 'add', '--path', '/sandbox/v1/me']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/status: .*\(422 validation_failed/);
    expect((await run(['emulator', 'faults', 'add', '--status', '500'])).code).toBe(2);
    expect((await emu.control('GET', '/faults')).body.data).toEqual([]);
  });
});

describe('emulator chaos', () => {
  const chaos = async () => (await emu.control('GET', '/webhooks/chaos')).body.data;

  it('set changes only the settings given; clear turns chaos off', async () => {
    await json(['emulator', 'chaos', 'set', '--duplicate-rate', '0.25']);
    expect(await chaos()).toEqual({ duplicate_rate: 0.25, reorder: false, delay_ms: 0 });
    const printed = await json(['emulator', 'chaos', 'set', '--reorder', '--delay-ms', '500']);
    expect(printed).toEqual({ duplicate_rate: 0.25, reorder: true, delay_ms: 500 });
    expect(await chaos()).toEqual(printed);
    await json(['emulator', 'chaos', 'set', '--no-reorder']);
    expect((await chaos()).reorder).toBe(false);
    const shown = await run(['emulator', 'chaos']);
    expect(shown.stdout).toMatch(/Duplicate rate:\s+0\.25 \(25 % sent twice\)/);
    expect((await run(['emulator', 'chaos', 'clear'])).code).toBe(0);
    expect(await chaos()).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
  });

  it('set without a setting is exit 2; a rate over 1 is the API\'s 422, exit 1', async () => {
    expect((await run(['emulator', 'chaos', 'set'])).code).toBe(2);
    const r = await run(['emulator', 'chaos', 'set', '--duplicate-rate', '1.5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/duplicate_rate: .*422 validation_failed/);
    expect((await chaos()).duplicate_rate).toBe(0);
  });
});

describe('emulator logs tail', () => {
  it('--last N --no-follow --json prints the newest matching requests, one JSON object per line, oldest first', async () => {
    await emu.api('GET', '/me');
    await emu.api('GET', '/nowhere');
    await emu.api('GET', '/store', { credential: 'svk_test_nope.svs_test_nopenopenope' });
    const r = await run(['emulator', 'logs', 'tail', '--last', '2', '--no-follow', '--json', '--status', '4xx']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((e) => [e.path, e.status, e.error_code])).toEqual([
      ['/sandbox/v1/nowhere', 404, 'not_found'],
      ['/sandbox/v1/store', 401, 'unauthenticated'],
    ]);
    const human = await run(['emulator', 'logs', 'tail', '--last', '1', '--no-follow', '--path', '/sandbox/v1/st*']);
    expect(human.stdout.trim()).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3}  401  GET     \/sandbox\/v1\/store  unauthenticated  [\d.]+ ms  req_\w+$/);
    expect(`${r.stdout}${human.stdout}`).not.toMatch(/svs_|nopenope/);
  });

  it('follows: a request answered after it started is printed at once; Ctrl+C ends it with exit 0', async () => {
    const child = spawn(process.execPath, [cliEntry(), 'emulator', 'logs', 'tail', '--json', '--path', '/sandbox/v1/store'], {
      cwd: ROOT, env: { ...process.env, ...env, NO_COLOR: '1' },
    });
    // The first line is the ready line (with the pid, issue 27); the first entry comes after it.
    const seen: string[] = [];
    const waiters: (() => void)[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      seen.push(line);
      waiters.splice(0).forEach((wake) => wake());
    });
    const nth = async (n: number): Promise<string> => {
      while (seen.length <= n) await new Promise<void>((resolve) => waiters.push(resolve));
      return seen[n]!;
    };
    const ready = nth(0);
    const first = nth(1);
    let stderr = '';
    const following = new Promise<void>((resolve) => child.stderr.on('data', (d) => {
      stderr += String(d);
      if (stderr.includes('Waiting for requests')) resolve();
    }));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let interrupted = 0;
    try {
      // It starts after the newest entry: only what comes once it follows is printed.
      await following;
      await emu.api('GET', '/me');
      const store = await emu.api('GET', '/store');
      expect(JSON.parse(await ready)).toMatchObject({ event: 'ready', url: emu.running.url, pid: child.pid });
      const entry = JSON.parse(await first);
      expect(entry).toMatchObject({ path: '/sandbox/v1/store', status: 200, request_id: store.headers.get('x-request-id') });
    } finally {
      interrupted = Date.now();
      child.kill('SIGINT');
    }
    expect(await exited, stderr).toBe(0);
    // Ctrl+C ends the long poll in flight: no wait for its 20 s (counted from the Ctrl+C, not from a
    // start that a busy machine may stretch).
    expect(Date.now() - interrupted).toBeLessThan(15_000);
  });
});

describe('panel', () => {
  it('prints the panel URL and does not open a browser when the output is not a terminal', async () => {
    const r = await run(['panel']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`${emu.url}/_emulator/panel`);
    expect(await json(['panel', '--no-open'])).toEqual({ url: `${emu.url}/_emulator/panel`, opened: false });
    expect((await request(r.stdout.trim(), 'GET')).status).toBe(200);
  });

  it.skipIf(process.platform !== 'linux' || !existsSync('/usr/bin/script'))('on a terminal opens the URL with the platform opener (xdg-open); --no-open does not', async () => {
    // A stand-in xdg-open that writes down what it was asked to open; `script` gives the CLI a terminal.
    const exec = promisify(execFile);
    const dir = mkdtempSync(join(tmpdir(), 'mk-opener-'));
    try {
      const opened = join(dir, 'opened.txt');
      writeFileSync(join(dir, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
      chmodSync(join(dir, 'xdg-open'), 0o755);
      // Asynchronous: the emulator answering the CLI runs in this process.
      const onTerminal = async (args: string) => (await exec('script', ['-qec', `'${process.execPath}' '${cliEntry()}' panel ${args}`, '/dev/null'], {
        cwd: ROOT, env: { ...process.env, ...env, NO_COLOR: '1', PATH: `${dir}:${process.env.PATH}` }, encoding: 'utf8', timeout: 60_000,
      })).stdout;
      expect(await onTerminal('--no-open')).toContain(`${emu.url}/_emulator/panel`);
      expect(existsSync(opened)).toBe(false);
      expect(await onTerminal('')).toContain(`${emu.url}/_emulator/panel`);
      // The opener runs detached from the CLI: it writes its file a moment after the CLI has ended.
      await waitFor(() => existsSync(opened), () => `${opened}, written by the stand-in xdg-open`);
      expect(readFileSync(opened, 'utf8').trim()).toBe(`${emu.url}/_emulator/panel`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('emulator-only commands and their target', () => {
  it('nothing listening: one line that asks whether the emulator is running, exit 1, no retries', async () => {
    const cases = [['emulator', 'clock'], ['emulator', 'faults', 'clear'], ['simulate', 'paid', 'ord_x'], ['panel'], ['emulator', 'logs', 'tail']];
    // A retry would first wait at least 48 s (a minute's backoff, less its jitter): each command ends long before.
    const results = await inParallel(cases, async (args) => {
      const began = Date.now();
      const r = await run(args, { MERCHANT_KIT_BASE_URL: 'http://127.0.0.1:9/sandbox/v1', MERCHANT_KIT_RETRY_BASE_MS: '60000' });
      return { ...r, tookMs: Date.now() - began };
    });
    for (const [i, args] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(/no emulator answered at http:\/\/127\.0\.0\.1:9.*is it running\?/);
      expect(r.tookMs, args.join(' ')).toBeLessThan(40_000);
    }
  });

  it('a server that is not an emulator is named as such, exit 1', async () => {
    const server = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"No existe."}}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const cases = [['emulator', 'clock'], ['panel']];
      const results = await Promise.all(cases.map((args) => run(args, { MERCHANT_KIT_BASE_URL: base })));
      for (const [i, args] of cases.entries()) {
        const r = results[i]!;
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(/is not a merchant-kit emulator/);
      }
    } finally {
      server.close();
    }
  });

  it('an emulator with an admin token: 401 says to pass it; MERCHANT_KIT_ADMIN_TOKEN or --admin-token opens it', async () => {
    const guarded = await startTestEmulator({ adminToken: 'tok-sandbox-cli-long' });
    try {
      const base = { MERCHANT_KIT_BASE_URL: guarded.url };
      const refused = await run(['emulator', 'clock', 'advance', '1m'], base);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/401 unauthenticated\); pass --admin-token or set MERCHANT_KIT_ADMIN_TOKEN/);
      expect((await run(['emulator', 'clock', 'advance', '1m'], { ...base, MERCHANT_KIT_ADMIN_TOKEN: 'tok-sandbox-cli-long' })).code).toBe(0);
      expect((await run(['emulator', 'clock', 'advance', '1m', '--admin-token', 'tok-sandbox-cli-long'], base)).code).toBe(0);
      const state = await request(`${guarded.url}/_emulator/clock`, 'GET', { headers: { authorization: 'Bearer tok-sandbox-cli-long' } });
      expect(state.body.data.offset_seconds).toBe(120);
    } finally {
      await guarded.close();
    }
  });

  it('finds the emulator from the active profile when neither --base-url nor MERCHANT_KIT_BASE_URL is given', async () => {
    const profileEnv = { ...config.env };
    const added = await cli(['profile', 'add', 'local', '--base-url', emu.running.sandbox_base_url, '--credential-stdin'], {
      env: profileEnv, input: `${emu.test.credential}\n`,
    });
    expect(added.code, added.stderr).toBe(0);
    const before = (await clock()).offset_seconds;
    const r = await cli(['emulator', 'clock', 'advance', '10s', '--json'], { env: profileEnv });
    expect(r.code, r.stderr).toBe(0);
    expect((await clock()).offset_seconds).toBe(before + 10);
  });
});
