import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type Response, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, newStore } from '../../helpers/stores.js';

let emu: TestEmulator;
beforeAll(async () => {
  // Limits off: this file makes many failing calls on purpose; the per-IP block has its own file.
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu.close());

function expect401(res: Response) {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('unauthenticated');
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

const advance = (seconds: number) => emu.control('POST', '/clock/advance', { seconds });

describe('401 unauthenticated (spec: Authentication 4)', () => {
  it('answers an absent credential', async () => {
    expect401(await emu.api('GET', '/me', { credential: null }));
  });

  it.each([
    ['a key without secret', (c: string) => `Bearer ${c.split('.')[0]}`],
    ['another scheme', (c: string) => `Basic ${c}`],
    ['a bare credential without Bearer', (c: string) => c],
    ['garbage', () => 'Bearer hola.mundo'],
    ['mixed environments in one credential', (c: string) => `Bearer ${c.replace('svs_test_', 'svs_live_')}`],
  ])('answers a malformed Authorization header: %s', async (_name, header) => {
    expect401(await emu.api('GET', '/me', { credential: null, headers: { authorization: header(emu.test.credential) } }));
  });

  it('reads the Bearer scheme case-insensitively (RFC 9110) but never the credential', async () => {
    const as = (header: string) => emu.api('GET', '/me', { credential: null, headers: { authorization: header } });
    expect((await as(`bearer ${emu.test.credential}`)).status).toBe(200);
    expect((await as(`BEARER  ${emu.test.credential}`)).status).toBe(200);
    expect401(await as(`Bearer ${emu.test.credential.toUpperCase()}`));
  });

  it('answers a wrong secret', async () => {
    const [key, secret] = emu.test.credential.split('.');
    const wrong = `${key}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expect401(await emu.api('GET', '/me', { credential: wrong }));
  });

  it('answers a wrong secret of a key whose right secret answered 200 the call before, and 200 again after', async () => {
    const made = await newStore(emu);
    const [key, secret] = made.credential.split('.');
    const wrong = `${key}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const call = asStore(emu, made);
    expect((await call('GET', '/me')).status).toBe(200);
    expect401(await call('GET', '/me', { credential: wrong }));
    expect401(await call('GET', '/me', { credential: `${key}.${secret}0` }));
    expect((await call('GET', '/me')).status).toBe(200);
  });

  it("answers the other environment's credential on both base paths", async () => {
    expect401(await emu.api('GET', '/me', { credential: emu.live.credential }));
    expect401(await emu.liveApi('GET', '/me', { credential: emu.test.credential }));
  });

  it('answers a revoked credential', async () => {
    const made = await newStore(emu);
    const keyId = made.credential.split('.')[0];
    expect((await asStore(emu, made)('GET', '/me')).status).toBe(200);
    const res = await emu.control('DELETE', `/integrations/${made.integration.id}/credentials/${keyId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.key_id).toBe(keyId);
    expect(res.body.data.revoked_at).toEqual(expect.any(String));
    expect401(await asStore(emu, made)('GET', '/me'));
  });

  it('answers 404 not_found when revoking an unknown key', async () => {
    const made = await newStore(emu);
    const res = await emu.control('DELETE', `/integrations/${made.integration.id}/credentials/svk_test_nope`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const other = await newStore(emu);
    const foreign = await emu.control('DELETE', `/integrations/${made.integration.id}/credentials/${other.credential.split('.')[0]}`);
    expect(foreign.status).toBe(404);
  });
});

describe('rotation (spec: Authentication 8)', () => {
  it('keeps the old credential working during the overlap with credential.expires_at, then 401', async () => {
    const made = await newStore(emu);
    const rotated = await emu.control('POST', `/integrations/${made.integration.id}/credentials`, { overlap_hours: 2 });
    expect(rotated.status).toBe(201);
    const fresh: string = rotated.body.data.credential;
    expect(fresh).toMatch(/^svk_test_[A-Za-z0-9]+\.svs_test_[A-Za-z0-9]+$/);
    expect(rotated.body.data.key_id).toBe(fresh.split('.')[0]);
    expect(rotated.body.data.previous).toEqual([{ key_id: made.credential.split('.')[0], expires_at: expect.any(String) }]);

    const old = await asStore(emu, made)('GET', '/me');
    expect(old.status).toBe(200);
    const expiresAt = Date.parse(old.body.data.integration.credential.expires_at);
    expect(expiresAt).toBe(emu.running.emulator.clock.now() + 2 * 3600_000);
    const now = await emu.api('GET', '/me', { credential: fresh });
    expect(now.body.data.integration.credential).toEqual({ key_id: fresh.split('.')[0], expires_at: null });

    await advance(2 * 3600 - 1);
    expect((await asStore(emu, made)('GET', '/me')).status).toBe(200);
    await advance(1);
    expect401(await asStore(emu, made)('GET', '/me'));
    expect((await emu.api('GET', '/me', { credential: fresh })).status).toBe(200);
  });

  it('defaults the overlap to 24 hours', async () => {
    const made = await newStore(emu);
    const rotated = await emu.control('POST', `/integrations/${made.integration.id}/credentials`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.overlap_hours).toBe(24);
    const old = await asStore(emu, made)('GET', '/me');
    expect(Date.parse(old.body.data.integration.credential.expires_at)).toBe(emu.running.emulator.clock.now() + 24 * 3600_000);
  });

  it('with overlap 0 stops the old credential at once, also one that answered the call before', async () => {
    const made = await newStore(emu);
    expect((await asStore(emu, made)('GET', '/me')).status).toBe(200);
    const rotated = await emu.control('POST', `/integrations/${made.integration.id}/credentials`, { overlap_hours: 0 });
    expect(rotated.status).toBe(201);
    expect401(await asStore(emu, made)('GET', '/me'));
    expect((await emu.api('GET', '/me', { credential: rotated.body.data.credential })).status).toBe(200);
  });

  it('answers 422 for an overlap outside 0..72', async () => {
    const made = await newStore(emu);
    for (const overlap_hours of [73, -1, 1.5]) {
      const res = await emu.control('POST', `/integrations/${made.integration.id}/credentials`, { overlap_hours });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].field).toBe('overlap_hours');
    }
  });
});

describe('integration status (spec: Authentication 7)', () => {
  it('goes from inactive to active on the first valid call', async () => {
    const made = await newStore(emu);
    expect(made.integration.status).toBe('inactive');
    const statusInState = async () => {
      const state = await emu.control('GET', '/state');
      const test = state.body.data.environments.find((e: { name: string }) => e.name === 'test');
      return test.stores.find((s: { id: string }) => s.id === made.store.id).integrations[0].status;
    };
    const [key] = made.credential.split('.');
    await asStore(emu, made)('GET', '/me', { credential: `${key}.svs_test_wrongsecret` });
    expect(await statusInState()).toBe('inactive');
    const me = await asStore(emu, made)('GET', '/me');
    expect(me.body.data.integration.status).toBe('active');
    expect(await statusInState()).toBe('active');
  });
});
