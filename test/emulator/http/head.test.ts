import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// DESIGN: HEAD comes with every GET of the API and the control API. Each GET route takes HEAD itself
// (emulator/http/head.ts, one route instead of two): a HEAD gets the GET's status and headers, the
// length of the body a GET gets, and no body.

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function call(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The headers that say something of the answer (not of the moment or the request). */
function lasting(headers: Answer['headers']): Answer['headers'] {
  const { date: _date, 'x-request-id': _id, 'x-ratelimit-remaining': _remaining, 'keep-alive': _keepAlive, connection: _connection, ...rest } = headers;
  return rest;
}

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.close());

describe('HEAD beside every GET', () => {
  const auth = () => ({ sandbox: { authorization: `Bearer ${emu.test.credential}` }, live: { authorization: `Bearer ${emu.live.credential}` } });

  it.each([
    ['the sandbox API', '/sandbox/v1/store', 'sandbox'],
    ['the live API', '/v1/me', 'live'],
    ['the OpenAPI document (no credential)', '/sandbox/v1/openapi.json', null],
    ['the control API', '/_emulator/state', null],
    ['a panel file', '/_emulator/panel/app.css', null],
    ['the health check', '/_emulator/health', null],
  ] as const)('answers HEAD on %s with the GET\'s status and headers, the body\'s length and no body', async (_name, path, credential) => {
    const headers = credential === null ? {} : auth()[credential];
    const get = await call(emu.url, 'GET', path, headers);
    const head = await call(emu.url, 'HEAD', path, headers);
    expect(get.status).toBe(200);
    expect(get.body.length).toBeGreaterThan(0);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(lasting(head.headers)).toEqual(lasting(get.headers));
    expect(Number(head.headers['content-length'])).toBe(get.body.length);
  });

  it('answers HEAD as GET where GET answers an error: 401 without a credential, 404 on an unknown path or a route without GET', async () => {
    for (const [path, status] of [['/sandbox/v1/me', 401], ['/sandbox/v1/nope', 404], ['/sandbox/v1/catalog/batch', 404], ['/_emulator/nope', 404]] as const) {
      const get = await call(emu.url, 'GET', path);
      const head = await call(emu.url, 'HEAD', path);
      expect([get.status, head.status], path).toEqual([status, status]);
      expect(head.body.length, path).toBe(0);
      expect(Number(head.headers['content-length']), path).toBe(get.body.length);
    }
  });

  it('redirects HEAD / to the panel as GET / does', async () => {
    const head = await call(emu.url, 'HEAD', '/');
    expect(head.status).toBe(302);
    expect(head.headers.location).toBe('/_emulator/panel');
  });
});
