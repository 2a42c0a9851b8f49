import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { buildEmulator } from '../../../emulator/app.js';
import { addEnvHooks } from '../../../emulator/api/env-plugin.js';
import { apiRoute, ok } from '../../../emulator/http/route.js';
import { endpoint } from '../../../src/contract/endpoint.js';
import { ApiError } from '../../../src/contract/errors.js';
import type { Emulator } from '../../../emulator/emulator.js';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, newStore } from '../../helpers/stores.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const pause = { accepting_orders: false };

describe('Idempotency-Key format (spec: Idempotency rules 1)', () => {
  it.each([
    ['7 characters', 'abcdefg'],
    ['101 characters', 'k'.repeat(101)],
    ['a space', 'clave con espacio'],
    ['a slash', 'clave/123456'],
    ['non-ASCII letters', 'clave-ñandú-1'],
  ])('answers 400 invalid_idempotency_key for %s', async (_name, key) => {
    const res = await emu.api('PATCH', '/store', { body: pause, idempotencyKey: key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_idempotency_key');
  });

  it.each([
    ['8 characters', 'abcdefgh'],
    ['100 characters', 'k'.repeat(100)],
    ['every allowed sign', 'A-z_0.9:x'],
  ])('accepts %s', async (_name, key) => {
    expect((await emu.api('PATCH', '/store', { body: pause, idempotencyKey: key })).status).toBe(200);
  });
});

describe('replay (spec: Idempotency rules 2–3)', () => {
  it('replays the first response with Idempotent-Replay: true and a new X-Request-Id', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    const first = await call('PATCH', '/store', { body: pause, idempotencyKey: 'pausa-0001' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replay')).toBeNull();
    // A panel change after the first call shows that the second answer is the stored one.
    await emu.control('PATCH', `/stores/${made.store.id}`, { fulfillment_types: ['pickup'] });
    const replay = await call('PATCH', '/store', { body: { ...pause }, idempotencyKey: 'pausa-0001' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(replay.body.data.fulfillment_types).toEqual(['delivery', 'pickup']);
    expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('answers 409 idempotency_conflict for the same key with another body', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    await call('PATCH', '/store', { body: pause, idempotencyKey: 'pausa-0002' });
    const res = await call('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'pausa-0002' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_conflict');
  });

  it('stores a 4xx answer and replays it', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    const first = await call('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'abrir-0001' });
    expect(first.status).toBe(422);
    const replay = await call('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'abrir-0001' });
    expect(replay.status).toBe(422);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body.error.details).toEqual(first.body.error.details);
    // The replayed error names the request that got it.
    expect(replay.body.error.request_id).toBe(replay.headers.get('x-request-id'));
  });

  it('scopes keys per integration', async () => {
    const a = await newStore(emu);
    const b = await newStore(emu);
    await asStore(emu, a)('PATCH', '/store', { body: pause, idempotencyKey: 'compartida-1' });
    const other = await asStore(emu, b)('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'compartida-1' });
    expect(other.status).toBe(422);
    expect(other.headers.get('idempotent-replay')).toBeNull();
  });

  it('keeps a key 7 days on the emulator clock, then takes it as new', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    await call('PATCH', '/store', { body: pause, idempotencyKey: 'semana-0001' });
    await emu.control('POST', '/clock/advance', { seconds: 7 * 24 * 3600 - 1 });
    expect((await call('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'semana-0001' })).status).toBe(409);
    await emu.control('POST', '/clock/advance', { seconds: 2 });
    const fresh = await call('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'semana-0001' });
    expect(fresh.status).toBe(422);
    expect(fresh.headers.get('idempotent-replay')).toBeNull();
  });
});

// A route of the contract's kind that fails with a 5xx the first times it is called.
const flaky = endpoint({
  id: 'flaky', method: 'POST', path: '/test-only/flaky', summary: 'test', scope: null, idempotency: 'optional',
  body: z.strictObject({ n: z.int() }), status: 200, response: z.object({ data: z.object({ calls: z.int() }) }), errors: [],
});

async function appWithFlakyRoute(): Promise<{ app: FastifyInstance; emulator: Emulator; url: string; credential: string }> {
  const { app, emulator } = await buildEmulator({ memory: true, clock: 'manual' });
  const env = emulator.env('test');
  let calls = 0;
  await app.register(
    async (child) => {
      addEnvHooks(child, emulator);
      apiRoute(child, emulator, flaky, () => {
        calls += 1;
        if (calls === 1) throw new Error('unexpected failure');
        if (calls === 2) throw ApiError.of('maintenance');
        return ok({ calls });
      });
    },
    // The API's one registration, under the live base path, serves the sandbox's too (api/base-path.ts).
    { prefix: emulator.env('live').basePath },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const credential = emulator.seeds.find((s) => s.environment === 'test')!.credential;
  return { app, emulator, url: `http://127.0.0.1:${port}${env.basePath}/test-only/flaky`, credential };
}

describe('5xx answers (spec: Idempotency rules 4)', () => {
  it('are not stored: the same key may be retried at once', async () => {
    const { app, url, credential } = await appWithFlakyRoute();
    try {
      const send = () => request(url, 'POST', { credential, body: { n: 1 }, idempotencyKey: 'reintento-1' });
      const crash = await send();
      expect(crash.status).toBe(500);
      expect(crash.body.error.code).toBe('internal_error');
      const down = await send();
      expect(down.status).toBe(503);
      expect(down.headers.get('idempotent-replay')).toBeNull();
      const done = await send();
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ data: { calls: 3 } });
      expect(done.headers.get('idempotent-replay')).toBeNull();
      const replay = await send();
      expect(replay.body).toEqual({ data: { calls: 3 } });
      expect(replay.headers.get('idempotent-replay')).toBe('true');
    } finally {
      await app.close();
    }
  });
});
