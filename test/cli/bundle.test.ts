import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { buildState, bundleText, rewriteBundle, type StateFixture } from '../helpers/bundle.js';
import { startEmulator } from '../../emulator/server.js';

let source: TestEmulator;
let fixture: StateFixture;
let dir: string;
const children: CliProcess[] = [];

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const cli = runCli(args, env);
  children.push(cli);
  const { code } = await cli.exited;
  return { code, stdout: cli.lines.join('\n'), stderr: cli.stderr() };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mk-bundle-'));
  await ensureBuilt();
  source = await startTestEmulator();
  fixture = await buildState(source, 'http://127.0.0.1:9/hook');
});

afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGTERM');
  await source?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('merchant-kit emulator export', () => {
  it('writes the running emulator\'s bundle, readable by its owner only, without a secret', async () => {
    const out = join(dir, 'state.json.gz');
    const { code, stdout, stderr } = await run(['emulator', 'export', '--out', out, '--base-url', source.running.sandbox_base_url]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Wrote .*state\.json\.gz \(\d+ bytes, sha256 [0-9a-f]{16}…\) from http:\/\/127\.0\.0\.1:\d+: .*test 1 store, 3 orders/);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const text = bundleText(readFileSync(out));
    expect(text).not.toMatch(/svs_|whsec_/);
    expect(stdout).not.toMatch(/svs_|whsec_/);
  });

  it('reads a data directory directly with --data (--json prints a summary)', async () => {
    const data = join(dir, 'data');
    const emu = await startEmulator({ port: 0, data, clock: 'manual' });
    try {
      const test = emu.stores.find((s) => s.environment === 'test')!;
      await request(`${emu.admin_url}/stores/${test.store_id}/products`, 'POST', { body: { name: 'Chipa', price: '5000' } });
      await request(`${emu.admin_url}/orders`, 'POST', { body: { store_id: test.store_id } });
    } finally {
      await emu.close();
    }
    const out = join(dir, 'from-data.json.gz');
    const { code, stdout } = await run(['--json', 'emulator', 'export', '--data', data, '--out', out]);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ file: out, format: 'merchant-kit-bundle', version: 1 });
    expect(summary.environments.find((e: any) => e.environment === 'test')).toMatchObject({ orders: 1, products: 1 });
    expect(bundleText(readFileSync(out))).not.toMatch(/svs_|whsec_/);
  });

  it('says in one line that no emulator answers, with exit 1 and no file', async () => {
    const out = join(dir, 'nothing.json.gz');
    const { code, stdout, stderr } = await run(['emulator', 'export', '--out', out, '--base-url', 'http://127.0.0.1:9']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/no emulator answered at http:\/\/127\.0\.0\.1:9/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a directory that is not an emulator data directory', async () => {
    const { code, stderr } = await run(['emulator', 'export', '--data', join(dir, 'nope'), '--out', join(dir, 'x.gz')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/not an emulator data directory/);
  });
});

describe('merchant-kit emulator start --from', () => {
  it('restores the bundle and prints fresh credentials for the restored integrations in the ready line', async () => {
    const out = join(dir, 'state.json.gz');
    const cli = runCli(['emulator', 'start', '--json', '--port', '0', '--memory', '--clock', 'manual', '--from', out]);
    children.push(cli);
    const ready = JSON.parse(await cli.firstLine);
    const test = ready.stores.find((s: any) => s.environment === 'test');
    expect(test.store_id).toBe(source.test.store_id);
    expect(test.integration_id).toBe(source.test.integration_id);
    expect(test.credential).toMatch(/^svk_test_\w+\.svs_test_\w+$/);
    expect(test.credential).not.toBe(source.test.credential);
    expect(test.webhook_signing_secret).toMatch(/^whsec_/);
    const orders = await request(`${ready.sandbox_base_url}/orders?limit=200`, 'GET', { credential: test.credential });
    const original = await source.api('GET', '/orders?limit=200');
    expect(orders.body.data).toEqual(original.body.data);
    const clock = await request(`${ready.admin_url}/clock`, 'GET');
    expect(clock.body.data.now).toBe((await source.control('GET', '/clock')).body.data.now);
    const replay = await request(`${ready.sandbox_base_url}/orders/${fixture.orderIds[0]}/ack`, 'POST', {
      credential: test.credential, body: fixture.ackBody, idempotencyKey: fixture.ackKey,
    });
    expect(replay.body).toEqual(fixture.ackResponse);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  });

  it('refuses a tampered bundle with one clear line, exit 1, and never starts', async () => {
    const tampered = join(dir, 'tampered.json.gz');
    writeFileSync(tampered, rewriteBundle(readFileSync(join(dir, 'state.json.gz')), (e) => { e.payload.clock.now_ms = 1; }, false));
    const { code, stdout, stderr } = await run(['emulator', 'start', '--json', '--port', '0', '--memory', '--from', tampered]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/cannot start from .*tampered\.json\.gz: the bundle's checksum does not match/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a truncated bundle and leaves an existing data directory as it was', async () => {
    const data = join(dir, 'keep');
    const emu = await startEmulator({ port: 0, data });
    await emu.close();
    const before = readFileSync(join(data, 'test.sqlite'));
    const truncated = join(dir, 'truncated.json.gz');
    const whole = readFileSync(join(dir, 'state.json.gz'));
    writeFileSync(truncated, whole.subarray(0, whole.length - 100));
    const { code, stderr } = await run(['emulator', 'start', '--json', '--port', '0', '--data', data, '--from', truncated]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/truncated or damaged/);
    expect(readFileSync(join(data, 'test.sqlite')).equals(before)).toBe(true);
  });

  it('refuses a bundle of a newer version', async () => {
    const newer = join(dir, 'newer.json.gz');
    writeFileSync(newer, rewriteBundle(readFileSync(join(dir, 'state.json.gz')), (e) => { e.version = 7; }));
    const { code, stderr } = await run(['emulator', 'start', '--json', '--port', '0', '--memory', '--from', newer]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/newer merchant-kit \(bundle version 7; this one reads up to 1\)/);
  });
});
