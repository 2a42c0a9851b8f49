import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  await seedMenu(emu);
});
afterAll(() => emu?.close());

describe('GET /_emulator/panel/stores/{store_id}/orders', () => {
  it('answers the newest `limit` orders of the store, oldest first, as the API presents them', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await simulate(emu));
    const res = await emu.control('GET', `/panel/stores/${emu.test.store_id}/orders?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([made[1].id, made[2].id]);
    expect(res.body.data[1]).toEqual((await emu.api('GET', `/orders/${made[2].id}`)).body.data);
    const all = await emu.control('GET', `/panel/stores/${emu.test.store_id}/orders`);
    expect(all.body.data.map((o: { id: string }) => o.id).slice(-3)).toEqual(made.map((o) => o.id));
  });

  it('answers an empty board for a store without orders', async () => {
    const res = await emu.control('GET', `/panel/stores/${emu.live.store_id}/orders`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});
