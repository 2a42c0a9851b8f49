import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../../../src/cli/commands/proxy/server.js';
import { writeWholeThenRead } from '../../helpers/security.js';

// DESIGN, Storage and the team sandbox: a 413 is readable by a client still writing, through
// `merchant-kit proxy` too (issue 24): it refused a body over 5 MB by its Content-Length and closed
// at once, so a client still writing met a reset instead of the answer.

let upstream: Server;
let proxy: RunningProxy;
let forwarded = 0;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    forwarded++;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}'));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  proxy = await startProxy({ to: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/sandbox/v1`, port: 0, host: '127.0.0.1', timeoutMs: 10_000, onExchange: () => undefined });
});
afterAll(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const SIX_MB = 6_000_000;
const head = (extra: string) =>
  `POST /sandbox/v1/catalog/batch HTTP/1.1\r\nHost: ${new URL(proxy.url).host}\r\nContent-Type: application/json\r\nAuthorization: Bearer svk_test_a.svs_test_b\r\n${extra}`;

describe('merchant-kit proxy and a body over 5 MB from a client still writing it', () => {
  it('answers 413 payload_too_large that the client reads once it has written its body (Content-Length)', async () => {
    const res = await writeWholeThenRead(proxy.url, head(`Content-Length: ${SIX_MB}`), SIX_MB);
    expect(res.error).toBeNull();
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(forwarded).toBe(0);
  });

  it('answers 413 that the client reads once it has written a chunked body past 5 MB', async () => {
    const res = await writeWholeThenRead(proxy.url, head('Transfer-Encoding: chunked'), SIX_MB, true);
    expect(res.error).toBeNull();
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(forwarded).toBe(0);
  });
});
