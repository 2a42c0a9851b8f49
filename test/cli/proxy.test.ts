import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';
import { startProxyCli, type ProxyCli } from '../helpers/proxy.js';
import { waitFor } from '../helpers/wait.js';

let emu: TestEmulator;
let proxy: ProxyCli;
let record: string;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
  await seedMenu(emu);
  record = join(mkdtempSync(join(tmpdir(), 'mk-proxy-')), 'session.jsonl');
  proxy = await startProxyCli(emu.running.sandbox_base_url, ['--record', record]);
}, 300_000);

afterAll(async () => {
  await proxy?.stop();
  await emu?.close();
});

const viaProxy = (method: string, path: string, o: Parameters<typeof request>[2] = {}) =>
  request(`${proxy.url}${path}`, method, { credential: emu.test.credential, ...o });

/**
 * The record file's whole lines, once it holds the exchange printed last: the proxy prints an
 * exchange, then appends it to the file (a write that lands a moment later, in pieces for a long
 * line). The record names it by the answer's X-Request-Id.
 */
async function recorded(): Promise<{ lines: string[]; exchange: string }> {
  const requestId = proxy.exchanges().at(-1)!.request_id as string;
  return waitFor(() => {
    const lines = readFileSync(record, 'utf8').split('\n').slice(0, -1);
    const exchange = lines.find((l) => JSON.parse(l).response.headers['x-request-id'] === requestId);
    return exchange === undefined ? undefined : { lines, exchange };
  }, () => `the exchange of ${requestId} in ${record}`);
}

describe('merchant-kit proxy', () => {
  it('forwards a call untouched: same status, body and request id as the service', async () => {
    const before = proxy.exchanges().length;
    const res = await viaProxy('GET', '/me');
    expect(res.status).toBe(200);
    expect(res.body.data.store.id).toBe(emu.test.store_id);
    const [line] = (await proxy.waitFor(before + 1)).slice(before);
    expect(line).toMatchObject({ method: 'GET', path: '/sandbox/v1/me', status: 200, request_id: res.headers.get('x-request-id'), violations: [] });
  });

  it('prints a missing Idempotency-Key on ack with the rule of the spec and the request id', async () => {
    const order = await simulate(emu);
    const before = proxy.exchanges().length;
    const res = await viaProxy('POST', `/orders/${order.id}/ack`, { body: { external_id: 'ERP-1' } });
    expect(res.status).toBe(400);
    const [line] = (await proxy.waitFor(before + 1)).slice(before);
    expect(line.request_id).toBe(res.body.error.request_id);
    expect(line.violations).toEqual([expect.objectContaining({ rule: 'idempotency_key_required', spec: expect.stringContaining('Idempotency') })]);
  });

  it('prints each unknown field and wrong type of a request body', async () => {
    const before = proxy.exchanges().length;
    await viaProxy('PUT', '/catalog/products/P-1', { body: { name: 'Chipa', category_external_id: 'CAT-BURGER', price: 5000, colour: 'x' } });
    const [line] = (await proxy.waitFor(before + 1)).slice(before);
    expect(line.violations.map((v: any) => v.field).sort()).toEqual(['colour', 'price']);
  });

  it('names a retry that ignored Retry-After', async () => {
    const order = await simulate(emu);
    await emu.control('POST', '/faults', { path: `/sandbox/v1/orders/${order.id}/status`, status: 429, retry_after: 5 });
    const before = proxy.exchanges().length;
    const call = () => viaProxy('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: 'erp-retry-0001' });
    expect((await call()).status).toBe(429);
    expect((await call()).status).toBe(200);
    const lines = (await proxy.waitFor(before + 2)).slice(before);
    expect(lines[0].violations).toEqual([]);
    expect(lines[1].violations).toEqual([expect.objectContaining({ rule: 'retry_after_ignored' })]);
  });

  it('records every exchange as one JSON line without a secret', async () => {
    // Both calls' lines counted: a line still on its way would be taken for the next test's.
    const before = proxy.exchanges().length;
    const put = await viaProxy('PUT', '/webhook', { body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    expect(put.body.data.signing_secret).toMatch(/^whsec_/);
    await viaProxy('GET', `/me?probe=${encodeURIComponent(emu.test.credential)}`);
    await proxy.waitFor(before + 2);
    const text = `${(await recorded()).lines.join('\n')}\n`;
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(lines.every((l) => l.format === 'merchant-kit.exchange' && l.version === 1)).toBe(true);
    expect(text).not.toContain(put.body.data.signing_secret);
    expect(text).not.toContain(emu.test.credential.split('.')[1]);
    expect(text).not.toMatch(/svs_test_[A-Za-z0-9]{8}|whsec_[A-Za-z0-9]{8}/);
    expect(lines.find((l) => l.request.path === '/sandbox/v1/webhook').request.headers.authorization).toBe('[redacted]');
  });

  // issue 15: the recording showed `svs_test_[redacted]-TAIL`: masking stopped at the first `-` or `_`.
  it('records a secret with -, _, + and % masked to its end, in the path, a header and the body', async () => {
    const secret = 'svs_test_Head-TAIL_More+END%zz';
    const before = proxy.exchanges().length;
    await viaProxy('PUT', `/catalog/categories/CAT-REDACT?k=${secret}`, { body: { name: secret }, headers: { 'x-note': secret } });
    await proxy.waitFor(before + 1);
    const last = (await recorded()).exchange;
    expect(last).toContain('svs_test_[redacted]');
    // What a mask that stopped early would leave (at -, _, + or %); random ids may hold any letters, never these.
    expect(last).not.toMatch(/-TAIL|_More|\+END|%zz/);
    expect(proxy.proc.lines.join('\n')).not.toMatch(/-TAIL|_More|\+END|%zz/);
  });

  // Regression: a secret used as a field name reached stdout and the record file through the violation and the body's key.
  it('never prints or records a secret that the client sent as a field name', async () => {
    const secret = 'svs_test_FieldNameSecret0123456789';
    const before = proxy.exchanges().length;
    const res = await viaProxy('PUT', '/webhook', { body: { url: 'http://127.0.0.1:9/hook', events: ['*'], [secret]: 1 } });
    expect(res.status).toBe(422);
    const [printed] = (await proxy.waitFor(before + 1)).slice(before);
    expect(printed.violations.length).toBeGreaterThan(0);
    await recorded();
    expect(proxy.proc.lines.join('\n')).not.toContain(secret);
    expect(proxy.proc.stderr()).not.toContain(secret);
    expect(readFileSync(record, 'utf8')).not.toContain(secret);
  });

  // DESIGN: a body nested deeper than 1,000 levels is refused before parsing (issue 24).
  it('answers 400 malformed_json itself to a body nested 100,000 levels deep, and records the exchange', async () => {
    const before = proxy.exchanges().length;
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const res = await fetch(`${proxy.url}/catalog/batch`, {
      method: 'POST', body: deep,
      headers: { authorization: `Bearer ${emu.test.credential}`, 'content-type': 'application/json', 'idempotency-key': 'deep-body-1' },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('malformed_json');
    await proxy.waitFor(before + 1);
    const last = JSON.parse((await recorded()).exchange);
    expect(last.request.path).toBe('/sandbox/v1/catalog/batch');
    expect(last.request.headers['idempotency-key']).toBe('deep-body-1');
    expect(last.violations).toEqual([expect.objectContaining({ rule: 'malformed_json' })]);
  });

  // Regression: the Expect header was forwarded, undici refuses it, and the ERP got a 502 (.NET and
  // Java clients send Expect: 100-continue with their POST and PUT bodies; curl with large ones).
  it('forwards a request sent with Expect: 100-continue', async () => {
    const { rawRequest } = await import('../helpers/security.js');
    const res = await rawRequest(`${proxy.url}/catalog/categories/CAT-EXPECT`, 'PUT', {
      authorization: `Bearer ${emu.test.credential}`, 'content-type': 'application/json', expect: '100-continue',
    }, '{"name":"Expect"}');
    expect(res.status).toBe(201);
  });

  it('answers 404 in the spec error body for a path outside the --to prefix', async () => {
    const res = await request(`${new URL(proxy.url).origin}/v1/me`, 'GET', { credential: emu.live.credential });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', request_id: expect.stringMatching(/^req_/) });
  });

  it('survives a client that disconnects mid-body', async () => {
    const { port, hostname } = new URL(proxy.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write('POST /sandbox/v1/catalog/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"operations":');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    expect((await viaProxy('GET', '/me')).status).toBe(200);
  });
});

describe('merchant-kit proxy against a failing upstream', () => {
  let hang: Server;
  beforeAll(async () => {
    hang = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  });
  afterAll(() => {
    hang.closeAllConnections();
    hang.close();
  });

  it('answers 502 in the spec error body while the upstream is down, and keeps running', async () => {
    const down = await startProxyCli('http://127.0.0.1:9/sandbox/v1');
    try {
      for (let i = 0; i < 2; i++) {
        const res = await request(`${down.url}/me`, 'GET', { credential: emu.test.credential });
        expect(res.status).toBe(502);
        expect(res.body.error).toMatchObject({ code: 'upstream_unavailable', request_id: expect.stringMatching(/^req_/) });
      }
    } finally {
      expect((await down.stop()).code).toBe(0);
    }
  });

  it('answers 504 when the upstream does not answer within --timeout', async () => {
    const port = (hang.address() as { port: number }).port;
    const slow = await startProxyCli(`http://127.0.0.1:${port}/sandbox/v1`, ['--timeout', '1']);
    try {
      const started = Date.now();
      const res = await request(`${slow.url}/me`, 'GET', { credential: emu.test.credential });
      expect(res.status).toBe(504);
      expect(res.body.error.code).toBe('upstream_timeout');
      // After its --timeout of 1 s, not its default of 30 s (the bound halfway between them).
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(15_500);
      expect(slow.proc.stderr()).not.toContain(emu.test.credential.split('.')[1]);
    } finally {
      await slow.stop();
    }
  });

  // Regression: the proxy said "recording to …" and silently recorded nothing.
  it.each([['a folder', () => tmpdir()], ['a missing folder', () => join(tmpdir(), 'mk-no-such-dir', 'x.jsonl')]])(
    'refuses a --record file it cannot write (%s) with one line and exit 1, before listening',
    async (_what, file) => {
      const { runCli } = await import('../helpers/cli.js');
      const cli = runCli(['proxy', '--to', emu.running.sandbox_base_url, '--port', '0', '--record', file()]);
      expect((await cli.exited).code).toBe(1);
      expect(cli.stderr().trim().split('\n')).toEqual([expect.stringContaining(`Cannot write the record file ${file()}`)]);
      expect(cli.stderr()).not.toContain('Proxy listening');
    },
  );

  // Regression: Number('') is 0 and Number('1e1') is 10, so these started a proxy.
  it.each([[['--port', '']], [['--timeout', '1e1']]])('refuses %j with exit 2', async (args) => {
    const { runCli } = await import('../helpers/cli.js');
    const cli = runCli(['proxy', '--to', 'http://127.0.0.1:9/v1', ...args]);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('must be an integer');
  });

  it('refuses an http:// --to that is not loopback with exit 2', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const cli = runCli(['proxy', '--to', 'http://api.example.com/v1']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('https://');
  });
});
