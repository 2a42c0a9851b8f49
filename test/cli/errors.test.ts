import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrivateCli, cli } from '../helpers/cli-core.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';
import { refusedPort } from '../helpers/ports.js';

// issue 14: with --json an error is one JSON object on stderr (the API's error body plus the HTTP
// status); in human mode a state error shows its details; a refused connection on this machine
// fails at once and asks whether the emulator is running.

let emu: TestEmulator;
let env: NodeJS.ProcessEnv;
let removeBuild: () => void = () => undefined;

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  emu = await startTestEmulator();
  await seedMenu(emu);
  env = { MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: emu.test.credential };
});

afterAll(async () => {
  await emu?.close();
  removeBuild();
});

/** The one JSON object that --json leaves on stderr for an error. */
function jsonError(stderr: string): any {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return JSON.parse(lines[0]);
}

describe('an API error', () => {
  it('409 invalid_status_transition shows details.current_status beside the Spanish message, code and request id', async () => {
    const order = await simulate(emu);
    const r = await cli(['orders', 'status', order.id, 'preparing'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .+ — current_status: pending \(409 invalid_status_transition, request_id req_\w+\)\n$/);
  });

  it('with --json is one JSON object on stderr: status, code, Spanish message, details and request_id', async () => {
    const order = await simulate(emu);
    const r = await cli(['orders', 'status', order.id, 'preparing', '--json'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const body = jsonError(r.stderr);
    expect(body).toEqual({
      error: { status: 409, code: 'invalid_status_transition', message: expect.any(String), details: { current_status: 'pending' }, request_id: expect.stringMatching(/^req_/) },
    });
    expect(body.error.message).not.toMatch(/current_status|409/);
  });

  it('422 validation_failed with --json keeps the per-field details list', async () => {
    const order = await simulate(emu);
    const r = await cli(['orders', 'status', order.id, 'rejected', '--reason', 'no', '--json'], { env });
    expect(r.code).toBe(1);
    const body = jsonError(r.stderr);
    expect(body.error).toMatchObject({ status: 422, code: 'validation_failed', details: [expect.objectContaining({ field: 'reason' })] });
  });

  it('a 404 from a base path that is neither /v1 nor /sandbox/v1, with --json, carries the environment hint as `hint`', async () => {
    const r = await cli(['me', '--json'], { env: { ...env, MERCHANT_KIT_BASE_URL: emu.running.live_base_url.replace('/v1', '/other') } });
    expect(r.code).toBe(1);
    const body = jsonError(r.stderr);
    expect(body.error.status).toBe(404);
    expect(body.error.hint).toMatch(/did you mean .*\/sandbox\/v1\?/);
  });

  it('a 404 from a base URL that stops at /sandbox suggests …/sandbox/v1, not …/sandbox/sandbox/v1 (issue 27)', async () => {
    const root = emu.running.url;
    const r = await cli(['me', '--base-url', `${root}/sandbox`], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`hint: the base URL should end in /v1 (live) or /sandbox/v1 (test); did you mean ${root}/sandbox/v1?\n`);
    expect(r.stderr).not.toContain('/sandbox/sandbox');
  });
});

// issue 27: `merchant-kit me` after 125 requests under --clock manual waited 2 min 29 s, then failed.
describe('a 429 of an emulator whose clock is manual', () => {
  it('fails at once, without waiting for Retry-After, and names the way out: emulator clock advance 60s', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '41', 'x-emulator-clock': 'manual', 'x-request-id': 'req_manual' });
      res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'Demasiadas solicitudes.', request_id: 'req_manual' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sandbox/v1`;
    try {
      // The default backoff: a retry would wait Retry-After's 41 s.
      const r = await cli(['me'], { env: { MERCHANT_KIT_BASE_URL: base, MERCHANT_KIT_CREDENTIAL: emu.test.credential, MERCHANT_KIT_RETRY_BASE_MS: '' } });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'error: Demasiadas solicitudes. (429 rate_limited, request_id req_manual)\n' +
          "hint: the emulator's clock is manual, so its rate-limit minute ends only when the clock moves: merchant-kit emulator clock advance 60s (or start it with --limits off)\n",
      );
      const json = await cli(['me', '--json'], { env: { MERCHANT_KIT_BASE_URL: base, MERCHANT_KIT_CREDENTIAL: emu.test.credential } });
      expect(jsonError(json.stderr).error).toMatchObject({ status: 429, code: 'rate_limited', hint: expect.stringMatching(/emulator clock advance 60s/) });
    } finally {
      server.close();
    }
  });
});

describe('a 429 of the emulator itself under --clock manual (X-Emulator-Clock: manual)', () => {
  it('after 120 calls of a minute, `me` fails at once with the hint, instead of waiting out Retry-After', async () => {
    const made = await emu.control('POST', '/stores', { environment: 'test', name: 'Límite' });
    const credential = made.body.data.credential as string;
    for (let i = 0; i < 120; i++) expect((await request(`${emu.running.sandbox_base_url}/me`, 'GET', { credential })).status).toBe(200);
    // The client's retries would wait the minute's Retry-After four times: far past cli()'s 30 s.
    const r = await cli(['me'], { env: { MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: credential, MERCHANT_KIT_RETRY_BASE_MS: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\(429 rate_limited, request_id req_\w+\)\nhint: the emulator's clock is manual, so its rate-limit minute ends only when the clock moves: merchant-kit emulator clock advance 60s \(or start it with --limits off\)\n$/);
    expect(r.stderr).not.toContain('waiting');
  });
});

describe('a usage error', () => {
  it.each([
    ['an unknown option', ['orders', 'list', '--bogus', '--json'], /unknown option '--bogus'/],
    ['a value outside the list', ['orders', 'list', '--ack-status', 'nope', '--json'], /accepted values: pending, acknowledged, failed/],
    ['an empty argument', ['orders', 'get', '', '--json'], /the argument <order_id> of "get" is empty/],
    ['a missing subcommand', ['orders', '--json'], /subcommand/],
    ['no credential', ['me', '--json'], /no credential/],
  ])('with --json, %s is one JSON object with code usage_error, exit 2', async (_name, args, message) => {
    const r = await cli(args, { env: args[0] === 'me' ? { MERCHANT_KIT_BASE_URL: env.MERCHANT_KIT_BASE_URL } : env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const body = jsonError(r.stderr);
    expect(body).toEqual({ error: { status: null, code: 'usage_error', message: expect.stringMatching(message), details: null, request_id: null } });
    expect(body.error.message).not.toMatch(/^error:/);
  });

  it.each(['rejected', 'cancelled'])('orders status <id> %s without --reason is a usage error before any call (exit 2; the order does not even exist)', async (status) => {
    const r = await cli(['orders', 'status', 'ord_01M8ZZZZZZZZZZZZZZZZZZZZZZ', status], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: orders status ${status} needs --reason "…" (the customer reads it: 3 to 255 characters)\n`);
    const json = await cli(['orders', 'status', 'ord_01M8ZZZZZZZZZZZZZZZZZZZZZZ', status, '--json'], { env });
    expect(json.code).toBe(2);
    expect(jsonError(json.stderr).error).toMatchObject({ status: null, code: 'usage_error', message: expect.stringMatching(/needs --reason/) });
  });

  it('orders status <id> preparing --minutes 5 is a usage error before any call: minutes go only with accepted', async () => {
    const r = await cli(['orders', 'status', 'ord_01M8ZZZZZZZZZZZZZZZZZZZZZZ', 'preparing', '--minutes', '5'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --minutes goes only with accepted, not preparing\n');
  });

  it('without --json stays commander\'s line and the help hint', async () => {
    const r = await cli(['orders', 'list', '--bogus'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--bogus'\n(add --help for usage)\n");
  });
});

describe('a refused connection on this machine', () => {
  it('fails at once (no retries) and asks whether the emulator is running', async () => {
    const port = await refusedPort();
    // The default backoff (no MERCHANT_KIT_RETRY_BASE_MS): retries would take 15 s. --verbose prints
    // every retry on stderr, so the one error line alone shows there was none (not a time, which a
    // busy machine stretches).
    const r = await cli(['--verbose', 'orders', 'list'], { env: { MERCHANT_KIT_BASE_URL: `http://127.0.0.1:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: emu.test.credential, MERCHANT_KIT_RETRY_BASE_MS: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: could not reach http://127.0.0.1:${port}/sandbox/v1 (ECONNREFUSED): is the emulator running? Start it with "merchant-kit emulator start", or point --base-url at the one you use\n`);
    expect(r.stderr).not.toMatch(/not an emulator|real environment/);
  });

  it('simulate order and homologate --observe say no emulator answered and ask whether it is running, never "not an emulator"', async () => {
    const port = await refusedPort();
    const down = { MERCHANT_KIT_BASE_URL: `http://127.0.0.1:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: emu.test.credential };
    for (const args of [['simulate', 'order'], ['homologate', '--observe', '--integration', emu.test.integration_id, '--format', 'terminal']]) {
      const r = await cli(args, { env: down });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`no emulator answered at http://127\\.0\\.0\\.1:${port}/sandbox/v1; is it running\\?`));
      expect(r.stderr, args.join(' ')).not.toMatch(/not a merchant-kit emulator|not an emulator|real environment/i);
    }
  });

  it('homologate against a target that is down reports it as down, not as a real environment', async () => {
    const port = await refusedPort();
    const reports = mkdtempSync(join(tmpdir(), 'mk-errors-'));
    const r = await cli(['homologate', '--non-interactive', '--report-dir', reports, '--format', 'json'], {
      env: { MERCHANT_KIT_BASE_URL: `http://127.0.0.1:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: emu.test.credential, CI: '1' },
    });
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(reports, 'homologation.json'), 'utf8'));
    expect(report.notes.join('\n')).toMatch(/Nothing answered at .*: is the emulator running\?/);
    expect(report.notes.join('\n')).not.toMatch(/Real environment/);
    rmSync(reports, { recursive: true, force: true });
  });

  it('with --json is one network_error object naming the URL', async () => {
    const port = await refusedPort();
    const r = await cli(['me', '--json'], { env: { MERCHANT_KIT_BASE_URL: `http://localhost:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: emu.test.credential } });
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr).error).toMatchObject({ status: null, code: 'network_error', details: { cause: 'ECONNREFUSED', url: `http://localhost:${port}/sandbox/v1` } });
    expect(jsonError(r.stderr).error.message).toContain('is the emulator running?');
  });
});
