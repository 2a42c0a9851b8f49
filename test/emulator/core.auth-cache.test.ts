import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { asStore, newStore } from '../helpers/stores.js';

// Authentication reads its records through a cache that any database write empties
// (emulator/http/auth-cache.ts): a change must show on the very next call, never a call later.
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('authentication right after a change', () => {
  it('answers 403 insufficient_scope on the call after the scope was removed', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/store')).status).toBe(200);
    expect((await emu.control('PATCH', `/integrations/${made.integration.id}`, { scopes: ['orders:read'] })).status).toBe(200);
    const res = await call('GET', '/store');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('answers 403 store_suspended on the call after the store was suspended, and 200 again once restored', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/store')).status).toBe(200);
    await emu.control('PATCH', `/stores/${made.store.id}`, { suspended: true });
    expect((await call('GET', '/store')).body.error.code).toBe('store_suspended');
    await emu.control('PATCH', `/stores/${made.store.id}`, { suspended: false });
    expect((await call('GET', '/store')).status).toBe(200);
  });

  it('answers 401 on the call after a write straight to the database revoked the credential', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/me')).status).toBe(200);
    emu.running.emulator.env('test').db.prepare('UPDATE credentials SET revoked_at = 1 WHERE key_id = ?').run(made.credential.split('.')[0]);
    expect((await call('GET', '/me')).status).toBe(401);
  });

  it('answers 401 once the clock passes expires_at, with no write in between', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    const rotated = await emu.control('POST', `/integrations/${made.integration.id}/credentials`, { overlap_hours: 1 });
    expect(rotated.status).toBe(201);
    expect((await call('GET', '/me')).status).toBe(200);
    await emu.control('POST', '/clock/advance', { seconds: 3600 });
    expect((await call('GET', '/me')).status).toBe(401);
  });

  it('reports status active from the first call on, then keeps answering', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/me')).body.data.integration.status).toBe('active');
    expect((await call('GET', '/me')).body.data.integration.status).toBe('active');
  });
});
