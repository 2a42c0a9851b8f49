import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PanelBus, panelBus, type PanelChange } from '../../emulator/panel/bus.js';
import { sqliteDb, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('PanelBus', () => {
  it('sends one change per store and turn of the event loop, with every kind marked', async () => {
    const bus = new PanelBus();
    const got: PanelChange[] = [];
    bus.subscribe((c) => got.push(c));
    bus.mark('test', 'str_A', 'orders');
    bus.mark('test', 'str_A', 'orders');
    bus.mark('test', 'str_A', 'deliveries');
    bus.mark('live', 'str_B', 'state');
    expect(got).toEqual([]);
    await turn();
    expect(got).toEqual([
      { environment: 'test', store_id: 'str_A', kinds: ['orders', 'deliveries'] },
      { environment: 'live', store_id: 'str_B', kinds: ['state'] },
    ]);
    bus.mark('test', 'str_A', 'state');
    await turn();
    expect(got.at(-1)).toEqual({ environment: 'test', store_id: 'str_A', kinds: ['state'] });
  });

  it('keeps nothing while no panel listens, and stops sending after unsubscribe', async () => {
    const bus = new PanelBus();
    bus.mark('test', 'str_A', 'orders');
    const got: PanelChange[] = [];
    const off = bus.subscribe((c) => got.push(c));
    await turn();
    expect(got).toEqual([]);
    off();
    bus.mark('test', 'str_A', 'orders');
    await turn();
    expect(got).toEqual([]);
    expect(bus.listening).toBe(false);
  });
});

describe('panelBus of a running emulator', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  const changesOf = async (write: () => unknown | Promise<unknown>) => {
    const got: PanelChange[] = [];
    const off = panelBus(emu.running.emulator).subscribe((c) => got.push(c));
    try {
      await write();
      await turn();
      return got.filter((c) => c.environment === 'test' && c.store_id === emu.test.store_id).flatMap((c) => c.kinds);
    } finally {
      off();
    }
  };

  it('reports a webhook set through the API as a change of the store state and its deliveries', async () => {
    const kinds = await changesOf(() => emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/hooks', events: ['*'] } }));
    expect(kinds).toEqual(expect.arrayContaining(['state', 'deliveries']));
  });

  it('reports a delivery and an attempt however they are written, even by a plain SQL statement', async () => {
    const db = sqliteDb(emu);
    const delivery = await changesOf(() => db.prepare(
      `INSERT INTO webhook_deliveries (id, integration_id, event_id, event_type, body, status, created_at, updated_at)
       VALUES ('dlv_watch', ?, 'evt_watch', 'order.created', '{}', 'pending', 0, 0)`,
    ).run(emu.test.integration_id));
    expect(delivery).toEqual(['deliveries']);
    const attempt = await changesOf(() => db.prepare(
      `INSERT INTO webhook_attempts (delivery_id, number, attempted_at, manual, succeeded, duration_ms)
       VALUES ('dlv_watch', 1, 0, 1, 0, 5)`,
    ).run());
    expect(attempt).toEqual(['deliveries']);
  });
});
