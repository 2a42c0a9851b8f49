import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { orderAction, seedMenu, simulate } from '../../helpers/orders.js';
import { asStore, newStore } from '../../helpers/stores.js';

let emu: TestEmulator;
const orders: any[] = [];
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
  for (let i = 0; i < 5; i++) orders.push(await simulate(emu, { scenario: i % 2 ? 'pickup_invoice' : 'delivery' }));
});
afterAll(() => emu.close());

const ids = (res: { body: any }) => res.body.data.map((o: any) => o.id);
const advance = (seconds: number) => emu.control('POST', '/clock/advance', { seconds });

describe('GET /orders', () => {
  it('lists the store\'s orders oldest first with next_cursor null on the last page', async () => {
    const res = await emu.api('GET', '/orders');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(orders.map((o) => o.id));
    expect(res.body.next_cursor).toBeNull();
  });

  it('pages with cursor and limit without gaps or repeats', async () => {
    const first = await emu.api('GET', '/orders?limit=2');
    expect(ids(first)).toEqual(orders.slice(0, 2).map((o) => o.id));
    const second = await emu.api('GET', `/orders?limit=2&cursor=${first.body.next_cursor}`);
    expect(ids(second)).toEqual(orders.slice(2, 4).map((o) => o.id));
    const third = await emu.api('GET', `/orders?limit=2&cursor=${second.body.next_cursor}`);
    expect(ids(third)).toEqual([orders[4].id]);
    expect(third.body.next_cursor).toBeNull();
  });

  it('filters by a comma list of statuses', async () => {
    await orderAction(emu, orders[1].id, 'status', { status: 'accepted' });
    await orderAction(emu, orders[3].id, 'status', { status: 'rejected', reason: 'Sin stock' });
    expect(ids(await emu.api('GET', '/orders?status=accepted,rejected'))).toEqual([orders[1].id, orders[3].id]);
    expect(ids(await emu.api('GET', '/orders?status=rejected'))).toEqual([orders[3].id]);
  });

  it('filters by ack_status: pending returns exactly the orders not yet imported', async () => {
    await orderAction(emu, orders[0].id, 'ack', { external_id: 'ERP-API-1' });
    await orderAction(emu, orders[2].id, 'import-failure', { code: 'other', message: 'Caja cerrada' });
    expect(ids(await emu.api('GET', '/orders?ack_status=pending'))).toEqual([orders[1].id, orders[3].id, orders[4].id]);
    expect(ids(await emu.api('GET', '/orders?ack_status=acknowledged'))).toEqual([orders[0].id]);
    expect(ids(await emu.api('GET', '/orders?ack_status=failed'))).toEqual([orders[2].id]);
  });

  it('filters by created_since and updated_since on the emulator clock', async () => {
    await advance(600);
    const mark = new Date(emu.running.emulator.clock.now()).toISOString();
    const later = await simulate(emu);
    await orderAction(emu, orders[4].id, 'status', { status: 'accepted' });
    expect(ids(await emu.api('GET', `/orders?created_since=${encodeURIComponent(mark)}`))).toEqual([later.id]);
    expect(ids(await emu.api('GET', `/orders?updated_since=${encodeURIComponent(mark)}`))).toEqual([orders[4].id, later.id]);
  });

  it('answers 400 invalid_cursor for a made-up cursor', async () => {
    for (const cursor of ['abc', 'bzE6MA', Buffer.from('e1:5:5').toString('base64url')]) {
      const res = await emu.api('GET', `/orders?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
  });

  it('answers 422 for an unknown status, a limit over 200, a bad date and an unknown parameter', async () => {
    const res = await emu.api('GET', '/orders?status=pending,lost&limit=201&created_since=ayer&color=1');
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(['color', 'created_since', 'limit', 'status.1']);
  });
});

describe('GET /orders/{order_id} and /orders/by-external-id/{external_id}', () => {
  it('answers the complete order', async () => {
    const res = await emu.api('GET', `/orders/${orders[1].id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: orders[1].id, number: orders[1].number, status: 'accepted' });
  });

  it('finds an order by the code reported in ack', async () => {
    const res = await emu.api('GET', '/orders/by-external-id/ERP-API-1');
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(orders[0].id);
    expect(res.body.data.integration).toMatchObject({ external_id: 'ERP-API-1', ack_status: 'acknowledged' });
    expect((await emu.api('GET', '/orders/by-external-id/ERP-NADA')).status).toBe(404);
  });

  it('answers 404 not_found for another store\'s order and never lists it', async () => {
    const other = await newStore(emu);
    const call = asStore(emu, other);
    await seedMenu(emu, other.credential);
    const theirs = await simulate(emu, { store_id: other.store.id });
    const res = await emu.api('GET', `/orders/${theirs.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(ids(await emu.api('GET', '/orders'))).not.toContain(theirs.id);
    expect((await orderAction(emu, theirs.id, 'ack', { external_id: 'X-1' })).status).toBe(404);
    expect(ids(await call('GET', '/orders'))).toEqual([theirs.id]);
    expect(theirs.number).toBe(1); // numbering is per store
  });

  it('answers 404 for a malformed order id', async () => {
    expect((await emu.api('GET', '/orders/nada')).status).toBe(404);
  });

  it('needs orders:read (403 insufficient_scope without it)', async () => {
    const limited = await newStore(emu, { scopes: ['store:read'] });
    const res = await asStore(emu, limited)('GET', '/orders');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});
