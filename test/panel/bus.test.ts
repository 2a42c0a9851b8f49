import { describe, expect, it } from 'vitest';
import { PanelBus, type PanelChange } from '../../emulator/panel/bus.js';

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
