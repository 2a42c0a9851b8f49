import { expect, it } from 'vitest';
import { describePostgres } from '../../store/contract/harness.js';
import { gate, id, simpleOutbox, storeWithIntegration, T0, webhook } from '../../store/contract/fixtures.js';

// issue 25, tenth step: an emit reads the integrations its event goes to (and their webhooks) without
// the feed counter's lock, which its writes take with the COMMIT. Those writes read the targets again
// under the lock: when another process added an integration or changed a webhook in between, the
// unit of work runs again with the targets as they are. An integration's feed then has every event of
// its store after its first one (as when the targets were read under the lock), and no delivery goes
// to a webhook paused before the event's position was taken.

const created = (n: number) => ({ order: { id: `ord_${n}` } }) as never;

describePostgres('the targets of an event written by another process meanwhile', (h) => {
  it('are read again when an integration was added between the emit and its commit: the event goes to it too', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId, integrationId } = await storeWithIntegration(a);
    const runs: string[][] = [];
    const emitted = gate();
    const added = gate();
    const written = a.tx(async (tx) => {
      const events = await tx.emit('order.created', storeId, created(1));
      runs.push(events.map((e) => e.integrationId));
      emitted.open();
      await added.opened;
      return events;
    });
    await emitted.opened;
    const second = id('int');
    await b.integrations.insert({ id: second, storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1);
    added.open();
    const events = await written;
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
    let runs = 0;
    const emitted = gate();
    const paused = gate();
    const written = a.tx(async (tx) => {
      runs++;
      const events = await tx.emit('order.created', storeId, created(1));
      emitted.open();
      await paused.opened;
      return events;
    });
    await emitted.opened;
    await b.webhooks.save(webhook(storeId, integrationId, { paused: true, pausedReason: 'manual' }));
    paused.open();
    await written;
    expect(runs).toBe(2);
    expect(await a.webhooks.list(integrationId, null, 10)).toEqual([]);
  });

  it('are not read again when nothing changed, and a change elsewhere does not count', async () => {
    const a = h.storage.env('test');
    const b = (await h.openAnother()).env('test');
    const { storeId } = await storeWithIntegration(a);
    const other = await storeWithIntegration(a);
    let runs = 0;
    const emitted = gate();
    const added = gate();
    const written = a.tx(async (tx) => {
      runs++;
      const events = await tx.emit('order.created', storeId, created(1));
      emitted.open();
      await added.opened;
      return events;
    });
    await emitted.opened;
    await b.integrations.insert({ id: id('int'), storeId: other.storeId, system: 'otro', scopes: [], settings: {} as never }, T0 + 1);
    added.open();
    await written;
    expect(runs).toBe(1);
  });
});
