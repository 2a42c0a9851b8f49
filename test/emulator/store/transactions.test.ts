import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import type { EnvContext } from '../../../emulator/context.js';
import type { NewStore } from '../../../emulator/stores/repository.js';
import { integrationSettings, SCOPES } from '../../../src/contract/store.js';

// The storage port's unit of work (emulator/store/port.ts): `tx` commits whole or not at all, its
// after-commit steps follow the commit, and nothing outside a transaction sees half of one — however
// many turns of the event loop the transaction spans.
let emu: TestEmulator;
let env: EnvContext;
beforeAll(async () => {
  emu = await startTestEmulator();
  env = emu.running.emulator.env('test');
});
afterAll(() => emu.close());

const newStore = (): NewStore => {
  const id = env.ids.next('store');
  return { id, slug: id.toLowerCase(), name: 'Tienda de prueba', switchOn: true, paymentMethods: [], fulfillmentTypes: ['pickup'] };
};
/** A turn of the event loop: whatever else is due (a request, a timer) runs meanwhile. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('EnvStore.tx', () => {
  it('commits every write of the unit together, and reads its own writes through tx', async () => {
    const [a, b] = [newStore(), newStore()];
    await env.store.tx(async (tx) => {
      await tx.stores.insert(a, env.clock.now());
      await tx.stores.insert(b, env.clock.now());
      expect(await tx.stores.byId(a.id)).toMatchObject({ id: a.id, switchOn: true, suspended: false });
    });
    expect(await env.store.stores.byId(a.id)).toMatchObject({ id: a.id });
    expect(await env.store.stores.byId(b.id)).toMatchObject({ id: b.id });
  });

  it('rolls every write back when the work throws, and rethrows its error', async () => {
    const [a, b] = [newStore(), newStore()];
    const failure = new Error('the second write is refused');
    await expect(env.store.tx(async (tx) => {
      await tx.stores.insert(a, env.clock.now());
      await tx.stores.insert(b, env.clock.now());
      throw failure;
    })).rejects.toBe(failure);
    expect(await env.store.stores.byId(a.id)).toBeUndefined();
    expect(await env.store.stores.byId(b.id)).toBeUndefined();
  });

  it('runs the after-commit steps once committed, in registration order, and none after a rollback', async () => {
    const steps: string[] = [];
    await env.store.tx(async (tx) => {
      tx.afterCommit(() => steps.push('first'));
      await tx.stores.insert(newStore(), env.clock.now());
      tx.afterCommit(() => steps.push('second'));
      expect(steps).toEqual([]);
    });
    expect(steps).toEqual(['first', 'second']);
    await expect(env.store.tx(async (tx) => {
      tx.afterCommit(() => steps.push('rolled back'));
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    expect(steps).toEqual(['first', 'second']);
  });

  it('keeps a committed transaction committed when an after-commit step throws, runs the others and warns', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const store = newStore();
      const steps: string[] = [];
      await env.store.tx(async (tx) => {
        await tx.stores.insert(store, env.clock.now());
        tx.afterCommit(() => {
          throw new Error('a follower failed');
        });
        tx.afterCommit(() => steps.push('next'));
      });
      expect(steps).toEqual(['next']);
      expect(await env.store.stores.byId(store.id)).toBeDefined();
      expect(String(warn.mock.calls[0]?.[0])).toContain('a follower failed');
    } finally {
      warn.mockRestore();
    }
  });

  it('makes a read outside the transaction wait for the commit: it sees all of the unit or none of it', async () => {
    const [a, b] = [newStore(), newStore()];
    const events: string[] = [];
    let read: Promise<unknown> | undefined;
    await env.store.tx(async (tx) => {
      await tx.stores.insert(a, env.clock.now());
      // A read from elsewhere while the transaction is open (its first write made, not the second).
      read = env.store.stores.byId(b.id).then((found) => events.push(found ? 'read both' : 'read half'));
      await nextTurn();
      await tx.stores.insert(b, env.clock.now());
      events.push('last write');
    });
    await read;
    expect(events).toEqual(['last write', 'read both']);
  });

  it('makes a read outside a rolled-back transaction see none of it', async () => {
    const a = newStore();
    let read: Promise<unknown> | undefined;
    await expect(env.store.tx(async (tx) => {
      await tx.stores.insert(a, env.clock.now());
      read = env.store.stores.byId(a.id);
      await nextTurn();
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    expect(await read).toBeUndefined();
  });

  it('runs one transaction at a time: a second one starts once the first has committed', async () => {
    const events: string[] = [];
    const first = env.store.tx(async (tx) => {
      events.push('first begins');
      await nextTurn();
      await tx.stores.insert(newStore(), env.clock.now());
      await nextTurn();
      events.push('first ends');
    });
    const second = env.store.tx(async () => {
      events.push('second begins');
    });
    await Promise.all([first, second]);
    expect(events).toEqual(['first begins', 'first ends', 'second begins']);
  });

  it('lets the next transaction run after one that rolled back (the environment is not left locked)', async () => {
    await expect(env.store.tx(async () => {
      await nextTurn();
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    const store = newStore();
    await env.store.tx((tx) => tx.stores.insert(store, env.clock.now()));
    expect(await env.store.stores.byId(store.id)).toBeDefined();
  });
});

describe('Tx.emit', () => {
  /** A store with two integrations. */
  async function storeWithTwoIntegrations(): Promise<{ storeId: string; integrations: string[] }> {
    const store = newStore();
    const integrations = [env.ids.next('integration'), env.ids.next('integration')];
    await env.store.tx(async (tx) => {
      await tx.stores.insert(store, env.clock.now());
      for (const id of integrations) {
        await tx.integrations.insert({ id, storeId: store.id, system: 'erp', scopes: [...SCOPES], settings: integrationSettings.parse({}) }, env.clock.now());
      }
    });
    return { storeId: store.id, integrations };
  }

  it('writes one event for every integration of the store, or only for the one named', async () => {
    const { storeId, integrations } = await storeWithTwoIntegrations();
    const all = await env.store.tx((tx) => tx.emit('webhook.test', storeId, {}));
    expect(all.map((e) => e.integrationId).sort()).toEqual([...integrations].sort());
    expect(all.every((e) => e.type === 'webhook.test' && e.storeId === storeId)).toBe(true);
    expect(all[1]!.seq).toBeGreaterThan(all[0]!.seq);
    const one = await env.store.tx((tx) => tx.emit('webhook.test', storeId, {}, integrations[1]));
    expect(one.map((e) => e.integrationId)).toEqual([integrations[1]]);
    for (const event of [...all, ...one]) expect(await env.store.events.byId(event.id)).toMatchObject({ seq: event.seq, integrationId: event.integrationId });
  });

  it('publishes its change once committed, and neither an event nor a change for a rolled-back emit', async () => {
    const { storeId, integrations } = await storeWithTwoIntegrations();
    const published: string[] = [];
    const off = env.changes.on('events', (change) => {
      if (change.storeId === storeId) published.push(change.type);
    });
    try {
      let written: string[] = [];
      await expect(env.store.tx(async (tx) => {
        written = (await tx.emit('webhook.test', storeId, {})).map((e) => e.id);
        throw new Error('rollback');
      })).rejects.toThrow('rollback');
      expect(written).toHaveLength(2);
      for (const id of written) expect(await env.store.events.byId(id)).toBeUndefined();
      expect(published).toEqual([]);

      await env.store.tx(async (tx) => {
        await tx.emit('webhook.test', storeId, {}, integrations[0]);
        expect(published).toEqual([]);
      });
      expect(published).toEqual(['webhook.test']);
    } finally {
      off();
    }
  });
});
