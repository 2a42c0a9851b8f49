import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { admin, createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';
import { orderAction, seedMenu, simulate } from '../../../helpers/orders.js';
import { tripsOf } from '../../../helpers/round-trips.js';
import { waitFor } from '../../../helpers/wait.js';

// issue 25: an API request on a server database is admitted in one statement (shared state,
// credential, rate window) and GET /orders/{id}'s order comes in that same statement: one round trip.

describe.skipIf(!PG_URL)('an API request on PostgreSQL', () => {
  let emu: TestEmulator;
  let database: TestDatabase;
  beforeAll(async () => {
    roundTrips.countHttpRequests();
    database = await createTestDatabase({ migrated: true });
    emu = await startTestEmulator({ databaseUrl: database.url });
    await seedMenu(emu);
  });
  afterAll(async () => {
    await emu?.close();
    await database?.drop();
  });

  it('reads an order in one round trip, and sees a change made since at the next read', async () => {
    const order = await simulate(emu);
    const path = `/orders/${order.id}`;
    const read = async () => {
      const res = await emu.api('GET', path);
      expect(res.status).toBe(200);
      return res;
    };
    expect(await tripsOf('GET /sandbox/v1/orders/:id', () => read())).toBe(1);
    expect((await orderAction(emu, order.id, 'ack', { external_id: 'ERP-1' })).status).toBe(200);
    const after = await read();
    expect(after.body.data.integration.ack_status).toBe('acknowledged');
    expect(after.headers.get('x-ratelimit-remaining')).not.toBeNull();
    // Another store's order and no order at all: 404 as ever.
    expect((await emu.api('GET', '/orders/ord_01ZZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
  });

  it('counts the request in its integration\'s window only when it is admitted', async () => {
    const remaining = async () => Number((await emu.api('GET', '/me')).headers.get('x-ratelimit-remaining'));
    const first = await remaining();
    const wrong = emu.test.credential.replace(/\.svs_test_.*/, '.svs_test_wrong');
    expect((await emu.api('GET', '/me', { credential: wrong })).status).toBe(401);
    expect(await remaining()).toBe(first - 1);
  });

  it('answers an ack and a status change with the order their transaction wrote, without reading it again', async () => {
    const order = await simulate(emu);
    const ack = await tripsOf('POST /sandbox/v1/orders/:id/ack', () => orderAction(emu, order.id, 'ack', { external_id: 'ERP-2' }));
    const status = await tripsOf('POST /sandbox/v1/orders/:id/status', () => orderAction(emu, order.id, 'status', { status: 'accepted', estimated_minutes: 20 }));
    // admission (status: with the order's status, the homologation recorder's starting point), the
    // idempotency claim sent with BEGIN, the event's targets and the order's lock (which brings its
    // history; ack: and its external id's check, sent with it), then the update (status: with the
    // history entry), the event with the feed's lock, the idempotency answer and the notices with
    // COMMIT: no read of the order after the commit.
    expect([ack, status]).toEqual([3, 3]);
    const read = await emu.api('GET', `/orders/${order.id}`);
    expect(read.body.data.status).toBe('accepted');
    expect(read.body.data.status_history.map((h: { status: string }) => h.status)).toEqual(['pending', 'accepted']);
  });

  it('records a status call\'s starting status as its admission read it, the order\'s status alone', async () => {
    const order = await simulate(emu);
    await orderAction(emu, order.id, 'ack', { external_id: 'ERP-3' });
    const moves = [{ status: 'accepted', estimated_minutes: 20 }, { status: 'ready' }];
    for (const body of moves) expect((await orderAction(emu, order.id, 'status', body)).status).toBe(200);
    // The observer's ring (homologation_calls) is written in the background: look until both are there.
    const recorded = await waitFor(async () => {
      const { rows } = await admin((c) => c.query<{ call: { path: string; facts: { previous_status?: string; status?: string } } }>(
        "SELECT call::jsonb AS call FROM \"merchant_kit_shared\".homologation_calls WHERE call::jsonb->>'path' = $1 ORDER BY seq", [`/orders/${order.id}/status`]), database.url);
      return rows.length === moves.length && rows.map((r) => `${r.call.facts.previous_status}>${r.call.facts.status}`);
    }, () => 'the two status calls in the observer\'s ring');
    expect(recorded).toEqual(['pending>accepted', 'accepted>ready']);
  });

  it('simulates an order in the same round trips whatever its lines: the cart\'s products come in one read', async () => {
    const route = 'POST /_emulator/orders';
    const trips: number[] = [];
    await simulate(emu);
    for (let i = 0; i < 6; i++) trips.push(await tripsOf(route, () => simulate(emu)));
    // shared state, BEGIN sent with the store (which also finds the store's environment: the admin's
    // last lookup found it in this one, which is tried first; issue 25, twelfth step: no read of the
    // store before the transaction), whether it has an active product and its orderable products (one
    // round trip: issue 25), the
    // cart's products with their groups and options sent with the order number and its event's
    // targets (read ahead: issue 25, tenth and eleventh steps), the order and its history, the event
    // and the feed's lock with the COMMIT; the answer is the order as the transaction presented it
    // for its event.
    expect(new Set(trips)).toEqual(new Set([4]));
  });
});
