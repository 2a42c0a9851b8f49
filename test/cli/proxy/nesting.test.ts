import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ExchangeSummary, type RunningProxy } from '../../../src/cli/commands/proxy/server.js';

// DESIGN, Storage and the team sandbox: a body nested deeper than 1,000 levels is refused before
// parsing with 400 malformed_json, on the proxy too (issue 24, medium 4): `merchant-kit proxy` parsed
// every body to check it and to record it, so 5 MB of nested arrays blocked it for seconds.

let upstream: Server;
let proxy: RunningProxy;
let forwarded = 0;
const exchanges: ExchangeSummary[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    forwarded++;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}'));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const port = (upstream.address() as AddressInfo).port;
  proxy = await startProxy({ to: `http://127.0.0.1:${port}/sandbox/v1`, port: 0, host: '127.0.0.1', timeoutMs: 10_000, onExchange: (e) => exchanges.push(e) });
});
afterAll(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const put = (body: string) =>
  fetch(`${proxy.url}/catalog/categories/CAT-1`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: 'Bearer svk_test_a.svs_test_b' },
    body,
  }).then(async (res) => ({ status: res.status, body: await res.json() }));

describe('merchant-kit proxy and a body nested deeper than 1,000 levels', () => {
  it('answers 400 malformed_json itself and forwards nothing', async () => {
    const before = forwarded;
    const res = await put(`{"name":${'['.repeat(1000)}${']'.repeat(1000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
    expect(forwarded).toBe(before);
    expect(exchanges.at(-1)).toMatchObject({ method: 'PUT', status: 400 });
  });

  it('answers 400 malformed_json to 5 MB of nested arrays under an object', async () => {
    const before = forwarded;
    const depth = 2_499_990;
    const res = await put(`{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(res.status).toBe(400);
    expect(forwarded).toBe(before);
  });

  it('forwards a body nested 1,000 levels', async () => {
    const before = forwarded;
    expect((await put(`{"name":${'['.repeat(999)}${']'.repeat(999)}}`)).status).toBe(200);
    expect(forwarded).toBe(before + 1);
  });
});
