import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';
import { orderAction, seedMenu, simulate } from '../../../helpers/orders.js';
import { tripsOf } from '../../../helpers/round-trips.js';

// issue 25: GET /catalog/products and GET /events on a server database are read in the request's
// admission (route option `prefetch`): one round trip each, and what another process wrote since is
// in the next page (nothing is kept between requests).

describe.skipIf(!PG_URL)('a products or feed page on PostgreSQL', () => {
  let emu: TestEmulator;
  /** A second emulator on the same database: the other process of a team sandbox. */
  let other: TestEmulator;
  let database: TestDatabase;
  beforeAll(async () => {
    roundTrips.countHttpRequests();
    database = await createTestDatabase({ migrated: true });
    emu = await startTestEmulator({ databaseUrl: database.url });
    other = await startTestEmulator({ databaseUrl: database.url });
    await seedMenu(emu);
  });
  afterAll(async () => {
    await other?.close();
    await emu?.close();
    await database?.drop();
  });

  const ok = async (path: string) => {
    const res = await emu.api('GET', path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it('reads a products page in one round trip, and sees a price changed through another process at the next read', async () => {
    const route = 'GET /sandbox/v1/catalog/products';
    let first: any;
    expect(await tripsOf(route, async () => (first = await ok('/catalog/products?limit=2')))).toBe(1);
    expect(first.data.map((p: any) => p.external_id)).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    let second: any;
    expect(await tripsOf(route, async () => (second = await ok(`/catalog/products?limit=2&cursor=${first.next_cursor}&active=true`)))).toBe(1);
    expect(second.data.every((p: any) => p.active)).toBe(true);
    const filtered = await ok('/catalog/products?category_external_id=CAT-BURGER');
    expect(filtered.data.map((p: any) => p.external_id)).toEqual(['HB-CLASICA']);
    expect((await ok('/catalog/products?category_external_id=NO-SUCH')).data).toEqual([]);

    const patched = await other.api('PATCH', '/catalog/products/BEB-COCA', { credential: emu.test.credential, body: { price: '12500' } });
    expect(patched.status).toBe(200);
    const all = await ok('/catalog/products?limit=50');
    expect(all.data.find((p: any) => p.external_id === 'BEB-COCA').price).toBe('12500');
    // A bad cursor is still 400, without the admission's page.
    expect((await emu.api('GET', '/catalog/products?cursor=nope')).status).toBe(400);
  });

  it('reads a feed page in one round trip, from the start or after a cursor, and sees an event written through another process', async () => {
    const route = 'GET /sandbox/v1/events';
    const order = await simulate(emu);
    let page: any;
    expect(await tripsOf(route, async () => (page = await ok('/events?limit=100')))).toBe(1);
    const cursor = page.next_cursor as string;
    expect(page.data.at(-1).data.order.id).toBe(order.id);

    const ack = await orderAction(other, order.id, 'ack', { external_id: 'ERP-PAGES' }, { credential: emu.test.credential });
    expect(ack.status).toBe(200);
    let next: any;
    expect(await tripsOf(route, async () => (next = await ok(`/events?after=${cursor}&limit=100`)))).toBe(1);
    expect(next.data.map((e: any) => e.type)).toEqual(['order.updated']);
    expect(next.cursor_expired).toBe(false);
    // Nothing new: the same cursor back, one round trip.
    let empty: any;
    expect(await tripsOf(route, async () => (empty = await ok(`/events?after=${next.next_cursor}`)))).toBe(1);
    expect(empty).toMatchObject({ data: [], next_cursor: next.next_cursor, has_more: false });
    // A type filter keeps only that type.
    expect((await ok('/events?types=order.updated&limit=100')).data.map((e: any) => e.type)).toEqual(['order.updated']);
    // An empty page from the start (no event of the types asked yet): its next_cursor is the
    // integration's newest event of any type, read with the page in the same round trip.
    let none: any;
    expect(await tripsOf(route, async () => (none = await ok('/events?types=order.status_changed')))).toBe(1);
    expect(none).toEqual({ data: [], next_cursor: next.next_cursor, has_more: false, cursor_expired: false });
    // And the cursor it gave reads what comes after it.
    expect((await orderAction(other, order.id, 'status', { status: 'accepted' }, { credential: emu.test.credential })).status).toBe(200);
    expect((await ok(`/events?types=order.status_changed&after=${none.next_cursor}`)).data.map((e: any) => e.type)).toEqual(['order.status_changed']);
    // A cursor of a position never handed out is 400 invalid_cursor, as without the admission.
    const never = Buffer.from('e1:999999:1', 'utf8').toString('base64url');
    const refused = await emu.api('GET', `/events?after=${never}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_cursor');
  });
});
