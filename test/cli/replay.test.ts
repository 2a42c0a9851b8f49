import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/cli.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';
import { startProxyCli } from '../helpers/proxy.js';
import { readRecording } from '../../src/cli/commands/replay/read.js';

const dir = mkdtempSync(join(tmpdir(), 'mk-replay-'));
const record = join(dir, 'session.jsonl');
let orderId: string;

/** An emulator in the state the integrator's store had: the same menu and one simulated order. */
async function storeLikeTheIntegrators(): Promise<{ emu: TestEmulator; order: any }> {
  const emu = await startTestEmulator({ seed: 42 });
  await seedMenu(emu);
  return { emu, order: await simulate(emu, { scenario: 'delivery' }) };
}

// One emulator for the tests that only need one to answer (issue 27: they started one each, eleven
// in all): what they replay is refused, answered with an error or made in a store of its own, and
// each reads what it asserts (the clock, a store) in its own test.
let shared: TestEmulator;
afterAll(() => shared?.close());

beforeAll(async () => {
  await ensureBuilt();
  shared = await startTestEmulator();
  const { emu, order } = await storeLikeTheIntegrators();
  orderId = order.id;
  const proxy = await startProxyCli(emu.running.sandbox_base_url, ['--record', record]);
  try {
    const erp = (method: string, path: string, o: Parameters<typeof request>[2] = {}) =>
      request(`${proxy.url}${path}`, method, { credential: emu.test.credential, ...o });
    await erp('GET', '/me');
    await erp('GET', '/orders?ack_status=pending');
    await erp('POST', `/orders/${order.id}/ack`, { body: { external_id: 'ERP-100' }, idempotencyKey: 'erp-ack-100' });
    await erp('POST', `/orders/${order.id}/status`, { body: { status: 'accepted', estimated_minutes: 30 }, idempotencyKey: 'erp-status-100' });
    await erp('GET', `/orders/${order.id}`);
    await proxy.waitFor(5);
  } finally {
    await proxy.stop();
    await emu.close();
  }
});

async function replayAgainst(emu: TestEmulator, ...args: string[]) {
  const cli = runCli(['replay', record, '--against', emu.url, ...args], { MERCHANT_KIT_CREDENTIAL: emu.test.credential });
  const { code } = await cli.exited;
  return { code, lines: cli.lines, stderr: cli.stderr() };
}

describe('merchant-kit replay', () => {
  let twin: TestEmulator | undefined;
  afterAll(() => twin?.close());

  it('replays a session against an emulator in the same state with no difference, mapping ids that differ', async () => {
    const made = await storeLikeTheIntegrators();
    twin = made.emu;
    expect(made.order.id).not.toBe(orderId);
    const { code, lines, stderr } = await replayAgainst(made.emu, '--json');
    const results = lines.map((l) => JSON.parse(l));
    expect(results.map((r) => [r.method, r.status, r.same])).toEqual([
      ['GET', 200, true],
      ['GET', 200, true],
      ['POST', 200, true],
      ['POST', 200, true],
      ['GET', 200, true],
    ]);
    expect(results[2].path).toBe(`/sandbox/v1/orders/${made.order.id}/ack`);
    expect(code).toBe(0);
    expect(stderr).toContain('5 requests replayed, 0 differ');
  });

  it('reports where an emulator in another state answers differently, and exits 1', async () => {
    const { emu, order } = await storeLikeTheIntegrators();
    try {
      await emu.control('POST', `/orders/${order.id}/status`, { status: 'cancelled', reason: 'Cliente canceló', by: 'customer' });
      const { code, lines } = await replayAgainst(emu);
      expect(code).toBe(1);
      const text = lines.join('\n');
      expect(text).toMatch(/✖ #2 GET \/sandbox\/v1\/orders\?ack_status=pending/);
      expect(text).toContain('data.0.status: recorded "pending", got "cancelled"');
      expect(text).toMatch(/✖ #4 POST .*recorded 200, got 409/);
    } finally {
      await emu.close();
    }
  });

  it('refuses a file that is not a recording with exit 2 and the line', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"format":"merchant-kit.exchange","version":1}\nnot json\n');
    const cli = runCli(['replay', bad, '--against', 'http://127.0.0.1:9'], { MERCHANT_KIT_CREDENTIAL: 'svk_test_x.svs_test_y' });
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('bad.jsonl:1');
  });

  // Regression: these lines passed the check and failed later with "Cannot convert undefined or null to object".
  // Every case through readRecording (the file's check, before anything is sent); the built CLI's
  // refusal (exit 2, the line) for one (issue 27: a process per case).
  const BAD_HEADERS = [
    ['no request headers', { headers: undefined }],
    ['null request headers', { headers: null }],
    ['a header that is not text', { headers: { 'x-erp': 5 } }],
  ] as const;
  const withHeaders = (name: string, request: object) => {
    const bad = join(dir, name);
    const exchange = { format: 'merchant-kit.exchange', version: 1, seq: 1, at: '', duration_ms: 1, request: { method: 'GET', path: '/sandbox/v1/me', body: null, ...request }, response: { status: 200, headers: {}, body: null }, violations: [] };
    writeFileSync(bad, `${JSON.stringify(exchange)}\n`);
    return bad;
  };

  it.each(BAD_HEADERS)('readRecording refuses a recorded exchange with %s as a usage error naming the line', async (what, request) => {
    const bad = withHeaders(`bad-headers-${BAD_HEADERS.findIndex(([w]) => w === what)}.jsonl`, request);
    await expect(readRecording(bad)).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining(`${bad}:1: not an exchange`) });
  });

  it('refuses a recorded exchange with no request headers with exit 2 and the line', async () => {
    const bad = withHeaders('bad-headers.jsonl', { headers: undefined });
    const cli = runCli(['replay', bad, '--against', 'http://127.0.0.1:9'], { MERCHANT_KIT_CREDENTIAL: 'svk_test_x.svs_test_y' });
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('bad-headers.jsonl:1: not an exchange');
  });

  // Regression: a difference printed the replay target's fresh webhook signing secret in clear.
  it('never prints a secret of the replayed answers in its differences, human or --json', async () => {
    const emu = shared;
    const file = join(dir, 'webhook.jsonl');
    const exchange = {
      format: 'merchant-kit.exchange', version: 1, seq: 1, at: '', duration_ms: 1,
      request: { method: 'PUT', path: '/sandbox/v1/webhook', headers: { authorization: '[redacted]', 'content-type': 'application/json' }, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } },
      response: { status: 422, headers: {}, body: { error: { code: 'validation_failed', message: 'x', request_id: 'req_01M85K4B7YG0M1ES5ERX12QY31' } } },
      violations: [],
    };
    writeFileSync(file, `${JSON.stringify(exchange)}\n${JSON.stringify({ ...exchange, seq: 2, request: { ...exchange.request, method: 'POST', path: '/sandbox/v1/webhook/rotate-secret', body: null } })}\n`);
    for (const args of [[], ['--json']]) {
      const cli = runCli(['replay', file, '--against', emu.url, ...args], { MERCHANT_KIT_CREDENTIAL: emu.test.credential });
      expect((await cli.exited).code).toBe(1);
      const out = `${cli.lines.join('\n')}\n${cli.stderr()}`;
      expect(out).toContain('signing_secret');
      expect(out).not.toMatch(/whsec_(?!\[redacted\])/);
    }
  });

  it('says which environment lacks a credential instead of sending the request', async () => {
    const emu = shared;
    const live = join(dir, 'live.jsonl');
    writeFileSync(live, `${JSON.stringify({ format: 'merchant-kit.exchange', version: 1, seq: 1, at: '', duration_ms: 1, request: { method: 'GET', path: '/v1/me', headers: { authorization: '[redacted]' }, body: null }, response: { status: 200, headers: {}, body: null }, violations: [] })}\n`);
    const cli = runCli(['replay', live, '--against', emu.url], { MERCHANT_KIT_CREDENTIAL: 'svk_test_AAAA.svs_test_BBBB' });
    expect((await cli.exited).code).toBe(1);
    expect(cli.lines.join('\n')).toContain('no credential for the live environment');
  });

  // issue 15: a crafted recording moved the clock, re-pointed the webhook and revoked the credential
  // through the control API, directly or by dot segments under /sandbox/v1. The whole file is read and
  // checked (readRecording) before the first request goes out: every path through readRecording, and
  // the built CLI against an emulator (nothing sent, exit 2) for a control path named directly and one
  // reached by encoded dot segments (issue 27: a process per path).
  const CRAFTED = [
    ['/_emulator/clock/advance', 'POST', { seconds: 86400 }],
    ['/sandbox/v1/../../_emulator/clock/advance', 'POST', { seconds: 86400 }],
    ['/sandbox/v1/%2e%2e/%2E%2E/_emulator/clock/advance', 'POST', { seconds: 86400 }],
    ['/sandbox/v1/.%2e/.%2e/_emulator/reset', 'POST', null],
    ['/sandbox/v1\\..\\..\\_emulator/reset', 'POST', null],
    ['//evil.example/sandbox/v1/me', 'GET', null],
    ['/v2/me', 'GET', null],
  ] as const;
  const crafted = (name: string, path: string, method: string, body: unknown) => {
    const file = join(dir, name);
    const ok = { format: 'merchant-kit.exchange', version: 1, seq: 1, at: '', duration_ms: 1, request: { method: 'GET', path: '/sandbox/v1/me', headers: { authorization: '[redacted]' }, body: null }, response: { status: 200, headers: {}, body: null }, violations: [] };
    const bad = { ...ok, seq: 2, request: { method, path, headers: { 'content-type': 'application/json' }, body } };
    writeFileSync(file, `${JSON.stringify(ok)}\n${JSON.stringify(bad)}\n`);
    return file;
  };

  it.each(CRAFTED)('readRecording refuses a recorded %s by name as a usage error, reading no further', async (path, method, body) => {
    const file = crafted(`crafted-${CRAFTED.findIndex(([p]) => p === path)}.jsonl`, path, method, body);
    await expect(readRecording(file)).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining(`${file}:2: refused ${JSON.stringify(path)}`) });
  });

  it.each(CRAFTED.filter(([path]) => path === '/_emulator/clock/advance' || path.includes('%2e%2e')))('refuses a recorded %s by name with exit 2, before sending anything', async (path, method, body) => {
    const emu = shared;
    const file = crafted(`crafted-cli-${path.length}.jsonl`, path, method, body);
    const before = (await emu.control('GET', '/clock')).body.data;
    const cli = runCli(['replay', file, '--against', emu.url], { MERCHANT_KIT_CREDENTIAL: emu.test.credential });
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain(`${file.split('/').pop()}:2: refused ${JSON.stringify(path)}`);
    expect(cli.lines).toEqual([]);
    expect((await emu.control('GET', '/clock')).body.data).toEqual(before);
  });

  // issue 15: "Maximum call stack size exceeded" on a recorded body nested deeper than JSON.stringify can go.
  it('replays a recorded request and answer nested 100,000 levels deep without overflowing the stack', async () => {
    const emu = shared;
    const file = join(dir, 'deep.jsonl');
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const line = `{"format":"merchant-kit.exchange","version":1,"seq":1,"at":"","duration_ms":1,"request":{"method":"POST","path":"/sandbox/v1/catalog/batch","headers":{"authorization":"[redacted]","content-type":"application/json","idempotency-key":"deep-replay-1"},"body":${deep}},"response":{"status":200,"headers":{},"body":{"data":${deep}}},"violations":[]}`;
    writeFileSync(file, `${line}\n`);
    for (const args of [[], ['--json']]) {
      const cli = runCli(['replay', file, '--against', emu.url, ...args], { MERCHANT_KIT_CREDENTIAL: emu.test.credential });
      expect((await cli.exited).code).toBe(1);
      const out = `${cli.lines.join('\n')}\n${cli.stderr()}`;
      expect(out).not.toContain('call stack');
      expect(out).toMatch(/recorded 200, got 4\d\d|"recorded_status":200,"status":4\d\d/);
      expect(out).toContain('nested deeper than 64 levels');
    }
  });

  // issue 27: support replayed an integrator's session with the demo store's credential.
  it("warns when the credential is of another store than the recording's, which the target holds", async () => {
    const emu = shared;
    const made = await emu.control('POST', '/stores', { environment: 'test', name: 'ERP Acme' });
    const acme = made.body.data as { credential: string; store: { id: string } };
    const file = join(dir, 'acme.jsonl');
    const proxy = await startProxyCli(emu.running.sandbox_base_url, ['--record', file]);
    try {
      await request(`${proxy.url}/me`, 'GET', { credential: acme.credential });
      await request(`${proxy.url}/store`, 'GET', { credential: acme.credential });
      await proxy.waitFor(2);
    } finally {
      await proxy.stop();
    }
    const run = async (credential: string) => {
      const cli = runCli(['replay', file, '--against', emu.url], { MERCHANT_KIT_CREDENTIAL: credential });
      return { code: (await cli.exited).code, stderr: cli.stderr() };
    };
    const demo = await run(emu.test.credential);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toContain(`warning: ${file} was recorded in store ${acme.store.id}, but the credential is of store ${emu.test.store_id}: `);
    const own = await run(acme.credential);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).not.toContain('warning:');
  });

  // Regression: replay sent the recorded writes to whatever answered, a real environment included.
  it('refuses an --against that is not a merchant-kit emulator, and sends it nothing but the health probe', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"x","request_id":"req_x"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const cli = runCli(['replay', record, '--against', `http://127.0.0.1:${(server.address() as AddressInfo).port}`], { MERCHANT_KIT_CREDENTIAL: 'svk_test_AAAA.svs_test_BBBB' });
      expect((await cli.exited).code).toBe(2);
      expect(cli.stderr()).toContain('is not a merchant-kit emulator');
      expect(seen).toEqual(['GET /_emulator/health']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
