import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paginator } from '../../src/client/index.js';
import { startClientRig, type ClientRig } from '../helpers/client.js';

// spec: Conventions, Pagination — `next_cursor` until null; the client walks the pages for the caller.
let rig: ClientRig;
const ids: string[] = [];
beforeAll(async () => {
  rig = await startClientRig();
  await rig.client.catalog.categories.put('CAT-1', { name: 'Bebidas' });
  for (let i = 1; i <= 5; i++) {
    await rig.client.catalog.products.put(`BEB-${i}`, { name: `Bebida ${i}`, category_external_id: 'CAT-1', price: '5000' });
  }
  for (let i = 0; i < 5; i++) ids.push((await rig.control.simulateOrder({ store_id: rig.emu.test.store_id, scenario: 'pickup_invoice' })).id);
  await rig.client.orders.setStatus(ids[1]!, { status: 'accepted' });
});
afterAll(async () => rig?.close());

describe('cursor lists', () => {
  it('for await walks every order across pages of two, oldest first', async () => {
    const seen: string[] = [];
    for await (const order of rig.client.orders.list({ limit: 2 })) seen.push(order.id);
    expect(seen).toEqual(ids);
    const pages = rig.sent.filter((s) => s.path.startsWith('/sandbox/v1/orders?'));
    expect(pages).toHaveLength(3);
    expect(pages[1]!.path).toMatch(/[?&]cursor=/);
  });

  it('pages() yields each page with its next cursor, null on the last', async () => {
    const pages = [];
    for await (const page of rig.client.orders.list({ limit: 2 }).pages()) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.nextCursor === null)).toEqual([false, false, true]);
    expect(pages[0]!.requestId).toMatch(/^req_/);
  });

  it('first() reads one page; all() collects every item', async () => {
    const first = await rig.client.orders.list({ limit: 3 }).first();
    expect(first.data.map((o) => o.id)).toEqual(ids.slice(0, 3));
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await rig.client.catalog.products.list({ limit: 2 }).all()).map((p) => p.external_id)).toHaveLength(5);
  });

  it('sends status arrays as a comma-separated list', async () => {
    const both = await rig.client.orders.list({ status: ['pending', 'accepted'] }).all();
    expect(both).toHaveLength(5);
    const accepted = await rig.client.orders.list({ status: ['accepted'] }).all();
    expect(accepted.map((o) => o.id)).toEqual([ids[1]]);
    expect(rig.sent.at(-1)!.path).toContain('status=accepted');
    expect(rig.sent.some((s) => s.path.includes('status=pending%2Caccepted'))).toBe(true);
  });

  it('stops on a server that repeats its cursor or answers an empty page', async () => {
    let calls = 0;
    const loop = new Paginator<number>(async () => ({ data: [++calls], nextCursor: 'same', status: 200, requestId: null }));
    expect(await loop.all()).toEqual([1, 2]);
    const empty = new Paginator<number>(async () => ({ data: [], nextCursor: 'more', status: 200, requestId: null }));
    expect(await empty.all()).toEqual([]);
  });
});
