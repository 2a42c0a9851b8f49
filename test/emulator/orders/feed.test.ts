import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { orderAction, seedMenu, simulate } from '../../helpers/orders.js';
import { asStore, newStore } from '../../helpers/stores.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu.close());

const DAY = 24 * 3600;
const feed = (query = '') => emu.api('GET', `/events${query ? `?${query}` : ''}`);
const advance = (seconds: number) => emu.control('POST', '/clock/advance', { seconds });

/** A clean sandbox with a menu and `n` simulated orders. */
async function freshOrders(n: number): Promise<any[]> {
  await emu.control('POST', '/reset');
  await seedMenu(emu);
  const out = [];
  for (let i = 0; i < n; i++) out.push(await simulate(emu));
  return out;
}

describe('GET /events', () => {
  it('answers an empty feed with next_cursor null while the integration has no event', async () => {
    const made = await newStore(emu);
    const res = await asStore(emu, made)('GET', '/events');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null, has_more: false, cursor_expired: false });
  });

  it('returns events in strict creation order with the envelope', async () => {
    const orders = await freshOrders(3);
    for (const o of orders) await orderAction(emu, o.id, 'status', { status: 'accepted' });
    const res = await feed('types=order.created,order.status_changed');
    expect(res.body.data.map((e: any) => `${e.type}:${e.data.order.number}`)).toEqual([
      'order.created:1', 'order.created:2', 'order.created:3', 'order.status_changed:1', 'order.status_changed:2', 'order.status_changed:3',
    ]);
    expect(res.body.data[0]).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/), type: 'order.created', api_version: '1.0', created_at: expect.any(String),
      store_id: emu.test.store_id, integration_id: emu.test.integration_id, data: { order: expect.objectContaining({ id: orders[0].id }) },
    });
    expect(res.body.has_more).toBe(false);
  });

  it('answers 100 events by default and has_more while more wait', async () => {
    await freshOrders(101);
    const res = await feed('types=order.created');
    expect(res.body.data).toHaveLength(100);
    expect(res.body.has_more).toBe(true);
    const rest = await feed(`types=order.created&after=${res.body.next_cursor}`);
    expect(rest.body.data.map((e: any) => e.data.order.number)).toEqual([101]);
    expect(rest.body.has_more).toBe(false);
  });

  it('pages with after and limit: has_more true until the end, no gaps, and the last cursor stays put on an empty page', async () => {
    const orders = await freshOrders(5);
    const seen: string[] = [];
    let after: string | null = null;
    const pages: boolean[] = [];
    for (;;) {
      const res: any = await feed(`types=order.created&limit=2${after ? `&after=${after}` : ''}`);
      seen.push(...res.body.data.map((e: any) => e.data.order.id));
      pages.push(res.body.has_more);
      after = res.body.next_cursor;
      if (!res.body.has_more) break;
    }
    expect(seen).toEqual(orders.map((o) => o.id));
    expect(pages).toEqual([true, true, false]);
    const empty = await feed(`types=order.created&after=${after}`);
    expect(empty.body).toEqual({ data: [], next_cursor: after, has_more: false, cursor_expired: false });
    const more = await simulate(emu);
    const next = await feed(`types=order.created&after=${after}`);
    expect(next.body.data.map((e: any) => e.data.order.id)).toEqual([more.id]);
  });

  it('filters by types and still hands out a position past the skipped events', async () => {
    const [order] = await freshOrders(1);
    const none = await feed('types=order.updated');
    expect(none.body.data).toEqual([]);
    expect(none.body.next_cursor).not.toBeNull();
    await orderAction(emu, order.id, 'ack', { external_id: 'ERP-1' });
    const res = await feed(`types=order.updated&after=${none.body.next_cursor}`);
    expect(res.body.data.map((e: any) => e.type)).toEqual(['order.updated']);
  });

  it('answers 400 invalid_cursor for a made-up cursor or another integration\'s cursor', async () => {
    await freshOrders(1);
    for (const bad of ['xyz', 'ZTE6OTk5OTk5OjE', Buffer.from('o1:3').toString('base64url')]) {
      const res = await feed(`after=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const other = await newStore(emu);
    await seedMenu(emu, other.credential);
    await simulate(emu, { store_id: other.store.id });
    const theirs = await asStore(emu, other)('GET', '/events');
    const res = await feed(`after=${theirs.body.next_cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it('answers 422 for a limit outside 1 to 200 and an unknown type', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'types=order.deleted']) {
      const res = await feed(q);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('answers limit=0 as too_small (at least 1), not as a value that is not a number', async () => {
    const res = await feed('limit=0');
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ field: 'limit', code: 'too_small', message: 'Debe ser como mínimo 1.' }]);
    const orders = await emu.api('GET', '/orders?limit=0');
    expect(orders.body.error.details).toEqual([{ field: 'limit', code: 'too_small', message: 'Debe ser como mínimo 1.' }]);
  });

  it('keeps events 30 days on the emulator clock; a cursor to a removed event restarts at the oldest with cursor_expired', async () => {
    await freshOrders(1);
    const old = await feed('types=order.created');
    const oldCursor = old.body.next_cursor;
    await advance(29 * DAY);
    const recent = await simulate(emu);
    expect((await feed('types=order.created')).body.data).toHaveLength(2);
    await advance(DAY + 1);
    const res = await feed(`types=order.created&after=${oldCursor}`);
    expect(res.status).toBe(200);
    expect(res.body.cursor_expired).toBe(true);
    expect(res.body.data.map((e: any) => e.data.order.id)).toEqual([recent.id]);
    expect(await emu.running.emulator.env('test').store.events.bySeq(1)).toBeUndefined(); // purged, not just hidden
    const orders = await emu.api('GET', '/orders');
    expect(orders.body.data).toHaveLength(2); // orders are never deleted
  });

  it('shows store.updated only with store:read, and needs orders:read itself', async () => {
    const full = await newStore(emu);
    const limited = await newStore(emu, { scopes: ['orders:read'] });
    for (const made of [full, limited]) {
      await emu.control('PATCH', `/stores/${made.store.id}`, { payment_methods: [{ code: 'cash', name: 'Efectivo' }] });
    }
    const types = async (made: typeof full) => (await readAllEventsOf(made)).map((e: any) => e.type);
    expect(await types(full)).toContain('store.updated');
    expect(await types(limited)).not.toContain('store.updated');
    const noOrders = await newStore(emu, { scopes: ['store:read'] });
    const res = await asStore(emu, noOrders)('GET', '/events');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});

async function readAllEventsOf(made: Awaited<ReturnType<typeof newStore>>) {
  const res = await asStore(emu, made)('GET', '/events?limit=200');
  return res.body.data;
}

