import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildEmulator } from '../../../emulator/app.js';
import { addEnvHooks } from '../../../emulator/api/env-plugin.js';
import { apiRoute, ok } from '../../../emulator/http/route.js';
import { endpoint } from '../../../src/contract/endpoint.js';
import { logCapture, request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// spec: Environments — the live API at /v1, the sandbox's at /sandbox/v1, each with its own
// credentials and data. The emulator registers the API once, under /v1, and routes a sandbox request
// there (emulator/api/base-path.ts): every hook, route, log and record still sees the path the
// client sent, and the request runs in the environment of that path.

/** One request as sent, bytes of the path untouched (fetch would resolve dot segments itself). */
function rawCall(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.close());

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

/** The request log's entries (GET /_emulator/logs) for the request ids given, in their order. */
async function logged(...requestIds: string[]) {
  const entries = (await emu.control('GET', '/logs?tail=500')).body.data.entries as Array<Record<string, unknown>>;
  return requestIds.map((id) => entries.find((entry) => entry.request_id === id));
}

describe('one API for both base paths', () => {
  it('runs each request in the environment of its base path, with that environment\'s credentials only', async () => {
    const sandbox = await emu.api('GET', '/me');
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.data.integration.environment).toBe('test');
    expect(sandbox.body.data.store.id).toBe(emu.test.store_id);
    const live = await emu.liveApi('GET', '/me');
    expect(live.status).toBe(200);
    expect(live.body.data.integration.environment).toBe('live');
    expect(live.body.data.store.id).toBe(emu.live.store_id);
    // A credential of the other environment is no credential here (spec: Authentication).
    expect((await emu.api('GET', '/me', { credential: emu.live.credential })).status).toBe(401);
    expect((await emu.liveApi('GET', '/me', { credential: emu.test.credential })).status).toBe(401);
  });

  it('keeps each environment\'s data apart: a sandbox write is not seen live', async () => {
    const put = await emu.api('PUT', '/catalog/categories/CAT-BASE-PATH', { body: { name: 'Solo en prueba' } });
    expect(put.status).toBe(201);
    expect((await emu.api('GET', '/catalog/categories')).body.data.map((c: { external_id: string }) => c.external_id)).toContain('CAT-BASE-PATH');
    expect((await emu.liveApi('GET', '/catalog/categories')).body.data.map((c: { external_id: string }) => c.external_id)).not.toContain('CAT-BASE-PATH');
  });

  it('answers HEAD under the sandbox base path with the GET\'s headers and no body', async () => {
    const head = await rawCall(emu.url, 'HEAD', '/sandbox/v1/me', bearer(emu.test.credential));
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('answers 404 to a path that only begins like the sandbox\'s base path, to the base paths themselves and to a path not valid percent-encoding', async () => {
    for (const path of ['/sandbox/v1x/me', '/sandbox/v2/me', '/sandbox/me', '/sandbox/v1', '/sandbox/v1/', '/v1', '/sandbox/v1/nope', '/sandbox/v1/orders/%zz']) {
      const res = await rawCall(emu.url, 'GET', path, bearer(emu.test.credential));
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).error.code, path).toBe('not_found');
    }
  });

  it('removes dot segments before it tells the environment: /sandbox/v1/../../v1/me is the live API', async () => {
    const live = await rawCall(emu.url, 'GET', '/sandbox/v1/../../v1/me', bearer(emu.live.credential));
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body).data.integration.environment).toBe('live');
    const sandbox = await rawCall(emu.url, 'GET', '/v1/%2e%2e/sandbox/v1/me', bearer(emu.test.credential));
    expect(sandbox.status).toBe(200);
    expect(JSON.parse(sandbox.body).data.integration.environment).toBe('test');
  });

  it('logs each sandbox request with the path it came with, in the test environment (answered or unknown)', async () => {
    const answered = await rawCall(emu.url, 'GET', '/sandbox/v1/store?x=1', bearer(emu.test.credential));
    const unknown = await rawCall(emu.url, 'GET', '/sandbox/v1/nope', bearer(emu.test.credential));
    const live = await rawCall(emu.url, 'GET', '/v1/store', bearer(emu.live.credential));
    expect([answered.status, unknown.status, live.status]).toEqual([200, 404, 200]);
    const ids = [answered, unknown, live].map((res) => String(res.headers['x-request-id']));
    const entries = await logged(...ids);
    expect(entries.map((entry) => entry && [entry.environment, entry.path, entry.status])).toEqual([
      ['test', '/sandbox/v1/store', 200],
      ['test', '/sandbox/v1/nope', 404],
      ['live', '/v1/store', 200],
    ]);
    expect(entries[0]!.store_id).toBe(emu.test.store_id);
  });
});

describe('the API\'s one registration', () => {
  it('writes the path the client sent in the log\'s lines (--log), the first one included', async () => {
    const { lines, logStream } = logCapture();
    const { app } = await buildEmulator({ memory: true, clock: 'manual', logger: true, logStream });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      await rawCall(`http://127.0.0.1:${port}`, 'GET', '/sandbox/v1/me');
      await rawCall(`http://127.0.0.1:${port}`, 'GET', '/v1/me');
    } finally {
      await app.close();
    }
    const urls = lines.map((line) => JSON.parse(line) as { msg: string; req?: { url: string } }).filter((line) => line.msg === 'incoming request').map((line) => line.req!.url);
    expect(urls).toEqual(['/sandbox/v1/me', '/v1/me']);
  });

  it('serves a route registered under the live base path in both environments, each with its own credential', async () => {
    const probe = endpoint({
      id: 'probe', method: 'GET', path: '/test-only/probe', summary: 'test', scope: null, idempotency: 'none',
      status: 200, response: z.object({ data: z.object({ environment: z.string() }) }), errors: [],
    });
    const { app, emulator } = await buildEmulator({ memory: true, clock: 'manual' });
    await app.register(
      async (child) => {
        addEnvHooks(child, emulator);
        apiRoute(child, emulator, probe, ({ env, auth }) => ok({ environment: env.name, store: auth.store.id }));
      },
      { prefix: emulator.env('live').basePath },
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      const seed = (environment: string) => emulator.seeds.find((s) => s.environment === environment)!;
      const base = `http://127.0.0.1:${port}`;
      const sandbox = await request(`${base}/sandbox/v1/test-only/probe`, 'GET', { credential: seed('test').credential });
      expect(sandbox.body).toEqual({ data: { environment: 'test', store: seed('test').storeId } });
      const live = await request(`${base}/v1/test-only/probe`, 'GET', { credential: seed('live').credential });
      expect(live.body).toEqual({ data: { environment: 'live', store: seed('live').storeId } });
      expect((await request(`${base}/sandbox/v1/test-only/probe`, 'GET', { credential: seed('live').credential })).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});
