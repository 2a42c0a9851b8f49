import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { request, startTestEmulator } from '../helpers/emulator.js';
import { rawRequest } from '../helpers/security.js';
import { emulatorCli, type ReadyLine } from '../helpers/emulator-cli.js';

// The tests share nothing (each its own emulator, port and folder) and most of their time is a start
// or a stop: they run at once (issue 27).
const { start, tempDir, track } = emulatorCli('mk-safety-', { concurrent: true });

async function finished(cli: CliProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code } = await cli.exited;
  return { code, stdout: cli.lines.join('\n'), stderr: cli.stderr() };
}

beforeAll(ensureBuilt);

const mode = (path: string) => statSync(path).mode & 0o777;

describe.concurrent('secrets at rest', () => {
  it('creates the data folder 0700 and every database, WAL, seed and pid file 0600, whatever the umask', async () => {
    const data = join(tempDir(), 'nested', 'emulator');
    const { cli, ready } = await start(['--data', data]);
    // Writes so that the WAL files exist.
    await request(`${ready.sandbox_base_url}/webhook`, 'PUT', { credential: ready.stores[0]!.credential, body: { url: 'https://example.com/hook', events: ['*'] } });
    expect(mode(data)).toBe(0o700);
    const files = readdirSync(data);
    expect(files).toEqual(expect.arrayContaining(['test.sqlite', 'live.sqlite', 'test.sqlite-wal', 'test.sqlite-shm', 'seed-credentials.json', 'emulator.pid']));
    for (const file of files.filter((f) => /sqlite|seed|pid/.test(f))) expect(mode(join(data, file)), file).toBe(0o600);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });
});

describe.concurrent('--verbose logs', () => {
  it('never carry a credential or signing secret, plain or percent-encoded, from headers, query strings or bodies', async () => {
    const cli = runCli(['--verbose', 'emulator', 'start', '--json', '--port', '0', '--memory']);
    track(cli);
    const ready = JSON.parse(await cli.firstLine) as ReadyLine;
    const credential = ready.stores.find((s) => s.environment === 'test')!.credential;
    const api = ready.sandbox_base_url;
    const call = (path: string, init: RequestInit = {}) => fetch(`${api}${path}`, init).then((r) => r.text());
    const auth = { authorization: `Bearer ${credential}` };
    const encode = (text: string, under: string) => text.replace(/_/g, under).replace(/\./g, '%2E').replace(/-/g, '%2D');

    const created = JSON.parse(await call('/webhook', { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com/hook', events: ['*'] }) }));
    const signing: string = created.data.signing_secret;
    expect(signing).toMatch(/^whsec_/);
    for (const secret of [credential, signing]) {
      await call(`/me?token=${secret}`, { headers: auth });
      await call(`/me?token=${encode(secret, '%5F')}&b=1`, { headers: auth });
      await call(`/me?token=${encode(secret, '%5f')}`, { headers: auth });
      await call(`/orders/${encode(secret, '%5F')}`, { headers: auth });
      await call(`/orders/${secret}`, { headers: auth });
      await call('/store', { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ note: secret, [secret]: 1 }) });
      await call('/me', { headers: { authorization: `Bearer ${secret}` } });
    }
    await fetch(`${ready.admin_url}/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"environment":"test"}' });
    cli.child.kill('SIGTERM');
    const { code, stdout, stderr } = await finished(cli);
    expect(code).toBe(0);
    // The ready line is the one place a credential is shown (spec: shown once when generated).
    const log = [stderr, ...cli.lines.slice(1)].join('\n');
    expect(log).toContain('/sandbox/v1/me');
    expect(log.split('\n').length).toBeGreaterThan(20);
    const secretParts = [credential.split('.svs_test_')[1]!, ...signing.slice('whsec_'.length).split(/[-_]/).filter((p) => p.length >= 6)];
    for (const line of log.split('\n')) {
      for (const part of secretParts) expect(line, 'a log line carries a secret').not.toContain(part);
    }
    void stdout;
  });
});

describe.concurrent('a newcomer’s first minutes', () => {
  it('prints a human banner with each environment’s store and integration ids, and where the data lives', async () => {
    const data = tempDir();
    const cli = runCli(['emulator', 'start', '--port', '0', '--data', data]);
    track(cli);
    await cli.firstLine;
    // The banner is one write; its lines may still arrive in more than one piece.
    const text = await waitFor(() => cli.lines.includes('Press Ctrl+C to stop.') && cli.lines.join('\n'), () => `the banner's end; so far:\n${cli.lines.join('\n')}`);
    expect(text).toMatch(/^Emulator listening on http:\/\/127\.0\.0\.1:\d+ \(pid \d+\)/);
    expect(text).toContain(`data:         ${data}`);
    expect(text).toMatch(/test\s+store str_[0-9A-Z]{26}\s+integration int_[0-9A-Z]{26}/);
    expect(text).toMatch(/live\s+store str_[0-9A-Z]{26}\s+integration int_[0-9A-Z]{26}/);
    expect(text).not.toMatch(/tienda|escuchando|credencial/i);
    const memory = runCli(['emulator', 'start', '--port', '0', '--memory']);
    track(memory);
    await memory.firstLine;
    const banner = await waitFor(() => memory.lines.includes('Press Ctrl+C to stop.') && memory.lines.join('\n'), () => `the banner's end; so far:\n${memory.lines.join('\n')}`);
    expect(banner).toContain('in memory');
  });

  it('emulator stop ends the emulator of a data folder by its pid file, which a clean exit removes', async () => {
    const data = tempDir();
    const { cli, ready } = await start(['--data', data]);
    expect(readdirSync(data)).toContain('emulator.pid');
    const stop = runCli(['emulator', 'stop', '--data', data]);
    const result = await finished(stop);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Emulator (pid ${ready.pid}) stopped.`);
    expect((await cli.exited).code).toBe(0);
    expect(existsSync(join(data, 'emulator.pid'))).toBe(false);
    const again = await finished(runCli(['emulator', 'stop', '--data', data]));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('No running emulator found');
  });

  it('emulator start refuses a data folder another emulator serves, --from included, and leaves its state alone', async () => {
    const data = tempDir();
    const { ready } = await start(['--data', data]);
    const credential = ready.stores.find((s) => s.environment === 'test')!.credential;
    const put = await request(`${ready.sandbox_base_url}/catalog/categories/KEEP`, 'PUT', { credential, body: { name: 'Kept' } });
    expect(put.status).toBe(201);
    const bundle = join(tempDir(), 'other.json.gz');
    const exported = await finished(runCli(['--base-url', ready.url, 'emulator', 'export', '--out', bundle]));
    expect(exported.code, exported.stderr).toBe(0);
    const cases = [['--data', data], ['--data', data, '--from', bundle]];
    const seconds = await Promise.all(cases.map((args) => finished(runCli(['emulator', 'start', '--port', '0', ...args]))));
    for (const [i, args] of cases.entries()) {
      const second = seconds[i]!;
      expect(second.code, args.join(' ')).toBe(1);
      expect(second.stderr).toContain(`is served by another emulator (pid ${ready.pid}): stop it first (merchant-kit emulator stop --data`);
    }
    expect(readFileSync(join(data, 'emulator.pid'), 'utf8').trim()).toBe(String(ready.pid));
    const categories = await request(`${ready.sandbox_base_url}/catalog/categories`, 'GET', { credential });
    expect(categories.body.data.map((c: { external_id: string }) => c.external_id)).toContain('KEEP');
  });

  it('emulator start takes over a data folder whose pid file names a process that is gone', async () => {
    const { writeFileSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const data = tempDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(data, 'emulator.pid'), `${gone}\n`);
    const { ready } = await start(['--data', data]);
    expect(readFileSync(join(data, 'emulator.pid'), 'utf8').trim()).toBe(String(ready.pid));
  });

  it('emulator stop refuses to signal a pid that is not a merchant-kit process', async () => {
    const data = tempDir();
    const { writeFileSync } = await import('node:fs');
    const { spawn } = await import('node:child_process');
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)']);
    try {
      writeFileSync(join(data, 'emulator.pid'), `${other.pid}\n`);
      const result = await finished(runCli(['emulator', 'stop', '--data', data]));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('not a merchant-kit process');
      expect(other.exitCode).toBeNull();
    } finally {
      other.kill('SIGKILL');
    }
  });

  it.each(['abc', '-5', '0'])('emulator stop says a pid file holding %j names no process, and signals nothing', async (text) => {
    const { writeFileSync } = await import('node:fs');
    const data = tempDir();
    writeFileSync(join(data, 'emulator.pid'), `${text}\n`);
    const result = await finished(runCli(['emulator', 'stop', '--data', data]));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('holds no process id');
  });

  it('emulator reset puts the emulator found from --base-url back to its seeded state, with the admin token', async ({ onTestFinished }) => {
    // The subject is `emulator reset`: an in-process emulator serves it (a start of its own is emulator-start's subject).
    const emu = await startTestEmulator({ adminToken: 'tok-1234567890abcdef' });
    onTestFinished(() => emu.close());
    const ready = { admin_url: `${emu.url}/_emulator`, sandbox_base_url: emu.running.sandbox_base_url };
    const headers = { authorization: 'Bearer tok-1234567890abcdef' };
    await request(`${ready.admin_url}/clock/advance`, 'POST', { headers, body: { seconds: 600 } });
    const refused = await finished(runCli(['--base-url', ready.sandbox_base_url, 'emulator', 'reset']));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--admin-token');
    const reset = await finished(runCli(['--base-url', ready.sandbox_base_url, 'emulator', 'reset'], { MERCHANT_KIT_ADMIN_TOKEN: 'tok-1234567890abcdef' }));
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('Emulator reset');
    const clock = await request(`${ready.admin_url}/clock`, 'GET', { headers });
    expect(clock.body.data.offset_seconds).toBe(0);
  });

  it('emulator start --trust-proxy with something that is not an address or range: exit 2, naming it', async () => {
    const cli = runCli(['emulator', 'start', '--memory', '--port', '0', '--trust-proxy', '127.0.0.1,balancer.internal']);
    const { code, stderr } = await finished(cli);
    expect(code).toBe(2);
    expect(stderr).toMatch(/"balancer\.internal" is not an IP address or a CIDR range/);
  });
});

// One emulator started with both options serves the two tests (a process less, issue 27): the names
// it answers to and the balancers it believes are independent settings.
describe.concurrent('emulator start --allowed-host and --trust-proxy', () => {
  let shared: CliProcess;
  let ready: ReadyLine;
  beforeAll(async () => {
    shared = runCli(['emulator', 'start', '--json', '--port', '0', '--memory', '--allowed-host', 'emulator.test', '--allowed-host', 'other.test:4010', '--trust-proxy', '127.0.0.1,::1']);
    ready = JSON.parse(await shared.firstLine) as ReadyLine;
  });
  afterAll(async () => {
    shared.child.kill('SIGTERM');
    await shared.exited;
  });

  it('emulator start --allowed-host adds names the emulator answers to', async () => {
    expect((await rawRequest(`${ready.admin_url}/health`, 'GET', { host: 'emulator.test:4010' })).status).toBe(200);
    expect((await rawRequest(`${ready.admin_url}/health`, 'GET', { host: 'other.test' })).status).toBe(200);
    expect((await rawRequest(`${ready.admin_url}/health`, 'GET', { host: 'evil.test' })).status).toBe(403);
  });

  it('emulator start --trust-proxy believes the named balancers\' X-Forwarded-For for the per-IP limits', async () => {
    // The count is a fixed minute of the emulator's system clock: 31 failures that straddle a minute's
    // end are counted in two windows, so such a try is made again from another forwarded address.
    for (let attempt = 0; ; attempt++) {
      const wrong = { credential: 'svk_test_wrong.svs_test_wrong', headers: { 'x-forwarded-for': `203.0.113.${7 + attempt * 10}` } };
      const minute = Math.floor(Date.now() / 60_000);
      const thirty = await Promise.all(Array.from({ length: 30 }, () => request(`${ready.sandbox_base_url}/me`, 'GET', wrong)));
      const thirtyFirst = await request(`${ready.sandbox_base_url}/me`, 'GET', wrong);
      if (Math.floor(Date.now() / 60_000) !== minute && attempt < 5) continue;
      expect(thirty.map((r) => r.status)).toEqual(Array(30).fill(401));
      expect(thirtyFirst.status).toBe(429);
      break;
    }
    const other = { credential: ready.stores[0]!.credential, headers: { 'x-forwarded-for': '203.0.113.8' } };
    expect((await request(`${ready.sandbox_base_url}/me`, 'GET', other)).status).toBe(200);
  });
});
