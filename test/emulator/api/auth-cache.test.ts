import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sqliteDb, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, newStore } from '../../helpers/stores.js';

// Authentication reads its records through a cache that a write to a store, integration or
// credential row empties, however it is written (emulator/api/auth-cache.ts, emulator/adapters/sqlite/row-watch.ts): a
// change must show on the very next call, never a call later.
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
    sqliteDb(emu).prepare('UPDATE credentials SET revoked_at = 1 WHERE key_id = ?').run(made.credential.split('.')[0]);
    expect((await call('GET', '/me')).status).toBe(401);
  });

  it.each([
    ['the integration suspended', 'UPDATE integrations SET status = \'suspended\' WHERE id = ?', (m: any) => m.integration.id, 'integration_suspended'],
    ['the store suspended', 'UPDATE stores SET suspended = 1 WHERE id = ?', (m: any) => m.store.id, 'store_suspended'],
  ])('answers 403 on the call after a write straight to the database left %s', async (_what, sql, id, code) => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/store')).status).toBe(200);
    sqliteDb(emu).prepare(sql).run(id(made));
    expect((await call('GET', '/store')).body.error.code).toBe(code);
  });

  it('reads no credential row again after a write to another table', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    // The first call activates the integration (a write to its row): the second one is read from the rows.
    expect((await call('GET', '/store')).status).toBe(200);
    expect((await call('GET', '/store')).status).toBe(200);
    const db = sqliteDb(emu);
    const byKey = vi.spyOn(emu.running.emulator.env('test').store.credentials, 'byKey');
    try {
      db.exec('CREATE TEMP TABLE IF NOT EXISTS other_writes (n INTEGER)');
      db.prepare('INSERT INTO other_writes VALUES (1)').run();
      expect((await call('GET', '/store')).status).toBe(200);
      expect(byKey).not.toHaveBeenCalled();
    } finally {
      byKey.mockRestore();
    }
  });

  it('reads the rows again after a write to any column of stores but order_seq (an order number)', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/store')).status).toBe(200);
    expect((await call('GET', '/store')).status).toBe(200);
    const db = sqliteDb(emu);
    const columns = db.prepare("SELECT name FROM pragma_table_info('stores')").pluck().all() as string[];
    const byKey = vi.spyOn(emu.running.emulator.env('test').store.credentials, 'byKey');
    try {
      for (const column of columns) {
        byKey.mockClear();
        db.prepare(`UPDATE stores SET "${column}" = "${column}" WHERE id = ?`).run(made.store.id);
        expect((await call('GET', '/store')).status).toBe(200);
        expect([column, byKey.mock.calls.length]).toEqual([column, column === 'order_seq' ? 0 : 1]);
      }
    } finally {
      byKey.mockRestore();
    }
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
