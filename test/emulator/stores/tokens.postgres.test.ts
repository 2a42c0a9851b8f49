import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../helpers/postgres.js';
import { controlCall, freshAddress, furnishedStore, GuardClock, healthFromFreshAddress, type FurnishedStore } from '../../helpers/tokens.js';

// DESIGN, Storage and the team sandbox: the processes of one sandbox on PostgreSQL share the store
// tokens (their digests are in the database): a token made on one process opens its store on the
// other, one replaced on the other stops everywhere at once, and wrong tokens count one budget per IP.

const ADMIN = 'admin-token-del-sandbox-compartido';

describe.skipIf(!PG_URL)('store tokens on two processes of one PostgreSQL sandbox', () => {
  let database: TestDatabase;
  let one: TestEmulator;
  let two: TestEmulator;
  let store: FurnishedStore;
  // One guard clock for both processes (their wrong-token windows are one, in the database).
  const guard = new GuardClock();

  beforeAll(async () => {
    database = await createTestDatabase();
    const options = { memory: false, databaseUrl: database.url, adminToken: ADMIN, clock: 'manual' as const, guardNow: guard.now };
    one = await startTestEmulator(options);
    two = await startTestEmulator(options);
    store = await furnishedStore(one, ADMIN);
  }, 300_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('opens the store on the other process to the token made on the first, and only that store', async () => {
    expect((await controlCall(two, 'GET', `/orders/${store.orders[0]}`, store.token)).status).toBe(200);
    expect((await controlCall(two, 'POST', '/orders', store.token, { store_id: store.storeId, scenario: 'pickup_invoice' })).status).toBe(201);
    const state = (await controlCall(two, 'GET', '/state', store.token)).body.data;
    expect(state.access).toEqual({ role: 'store', store_id: store.storeId });
    expect(state.environments[0].stores.map((s: { id: string }) => s.id)).toEqual([store.storeId]);
    expect((await controlCall(two, 'GET', `/orders/${store.orders[0]}`, (await furnishedStore(two, ADMIN)).token)).status).toBe(404);
    expect((await controlCall(two, 'POST', '/reset', store.token)).status).toBe(403);
  });

  it('stops a token replaced on one process on the other at once', async () => {
    const fresh = (await controlCall(two, 'POST', `/stores/${store.storeId}/token`, ADMIN)).body.data.store_token;
    expect(await healthFromFreshAddress(one, [store.token])).toEqual([401]);
    expect((await controlCall(one, 'GET', `/orders/${store.orders[0]}`, fresh)).status).toBe(200);
    store = { ...store, token: fresh };
  });

  it('counts wrong tokens on both processes in one budget per IP: the 31st, on either, is 429', async () => {
    // The window is a minute of the guards' clock: start one.
    guard.freshMinute();
    const agent = freshAddress();
    try {
      for (let i = 0; i < 30; i++) {
        const target = i % 2 === 0 ? one : two;
        expect((await controlCall(target, 'GET', '/health', `mks_${String(i).padStart(40, '0')}`, undefined, agent)).status).toBe(401);
      }
      for (const target of [one, two]) {
        const res = await controlCall(target, 'GET', '/health', store.token, undefined, agent);
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe('rate_limited');
      }
    } finally {
      await agent.close();
    }
  });
});
