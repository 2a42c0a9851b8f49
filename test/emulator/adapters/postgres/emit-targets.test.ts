import { expect, it } from 'vitest';
import type { EnvStore, Tx } from '../../../../emulator/store/port.js';
import { describePostgres } from '../../store/contract/harness.js';
import { gate, id, order, simpleOutbox, storeWithIntegration, T0, webhook } from '../../store/contract/fixtures.js';

// issue 25, tenth step: an emit reads the integrations its event goes to (and their webhooks) without
// the feed counter's lock, which its writes take with the COMMIT. Those writes read the targets again
// under the lock: when another process added an integration or changed a webhook in between, the
// unit of work runs again with the targets as they are. An integration's feed then has every event of
// its store after its first one (as when the targets were read under the lock), and no delivery goes
// to a webhook paused before the event's position was taken. Eleventh step: a unit of work that locks
// an order reads the targets of the order's store with the lock, ahead of its emit; they are checked
// the same way.

const created = (n: number) => ({ order: { id: `ord_${n}` } }) as never;

/**
 * A unit of work on `a` that emits an event of `storeId` and, between its emit and its commit, lets
 * `meanwhile` (another process's change) run; with `lockedOrder`, it locks that order (of the store)
 * first, lets `meanwhile` run, and emits after it. The targets of each run's event, and the events
 * written.
 */
async function emitWhile(a: EnvStore, storeId: string, meanwhile: () => Promise<unknown>, lockedOrder?: string) {
  const runs: string[][] = [];
  const paused = gate();
  const changed = gate();
  const emit = async (tx: Tx) => {
    const events = await tx.emit('order.created', storeId, created(1));
    runs.push(events.map((e) => e.integrationId));
    return events;
  };
  const written = a.tx(async (tx) => {
    const events = lockedOrder === undefined ? await emit(tx) : (await tx.orders.byId(lockedOrder, { lock: true }), null);
    paused.open();
    await changed.opened;
    return events ?? emit(tx);
  });
  await paused.opened;
  await meanwhile();
  changed.open();
  return { runs, events: await written };
}

describePostgres('the targets of an event written by another process meanwhile', (h) => {
  it('are read again when an integration was added between the emit and its commit: the event goes to it too', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId, integrationId } = await storeWithIntegration(a);
    const second = id('int');
    const { runs, events } = await emitWhile(a, storeId, () => b.integrations.insert({ id: second, storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1));
    expect(runs).toEqual([[integrationId], [integrationId, second]]);
    expect(events.map((e) => e.integrationId)).toEqual([integrationId, second]);
    const feed = await a.events.feedPage({ integrationId: second, after: 0, cutoff: 0, types: ['order.created'], limit: 10 });
    expect(feed.map((e) => e.id)).toEqual([events[1]!.id]);
    // The first run's event was not written.
    expect(await a.events.maxSeq()).toBe(2);
  });

  it('are read again when a webhook was paused meanwhile: no delivery for it', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId, integrationId } = await storeWithIntegration(a);
    await a.webhooks.save(webhook(storeId, integrationId));
    // The outbox's rule (webhooks/outbox.ts): no delivery to a paused webhook.
    const outbox = simpleOutbox(() => h.clock.now());
    h.outbox = async (tx, event) => ((await tx.webhooks.get(event.integrationId))?.paused ? 0 : outbox(tx, event));
    const { runs } = await emitWhile(a, storeId, () => b.webhooks.save(webhook(storeId, integrationId, { paused: true, pausedReason: 'manual' })));
    expect(runs).toHaveLength(2);
    expect(await a.webhooks.list(integrationId, null, 10)).toEqual([]);
  });

  it('are not read again when nothing changed, and a change elsewhere does not count', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId } = await storeWithIntegration(a);
    const other = await storeWithIntegration(a);
    const { runs } = await emitWhile(a, storeId, () => b.integrations.insert({ id: id('int'), storeId: other.storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1));
    expect(runs).toHaveLength(1);
  });

  it('are read with an order\'s lock, ahead of the emit, and read again when an integration was added before the commit', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId, integrationId } = await storeWithIntegration(a);
    const o = order(storeId, 1);
    await a.tx(async (tx) => tx.orders.insert(o));
    const second = id('int');
    const { runs, events } = await emitWhile(a, storeId, () => b.integrations.insert({ id: second, storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1), o.id);
    // The first run's targets are those read with the lock, before the integration was added.
    expect(runs).toEqual([[integrationId], [integrationId, second]]);
    expect(events.map((e) => e.integrationId)).toEqual([integrationId, second]);
  });
});
