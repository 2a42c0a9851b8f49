import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { order, simpleOutbox, storeWithIntegration, webhook } from './fixtures.js';

// issue 25, eighth to tenth steps: the last migrations (10 to 12) changed no table or column
// (indexes and, on a server, how large texts are compressed, how full the orders' pages are, and a
// function the emits' writes call), so a
// bundle written at the version before restores on both adapters as it is. A later migration that
// changes the tables replaces this case with its own.

describeAdapters('a bundle of the previous schema version', (h) => {
  it('restores as it is, and dumps again at this version', async () => {
    h.outbox = simpleOutbox(() => h.clock.now());
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    const o = order(a.storeId, 1);
    await env.orders.insert(o);
    await env.tx((tx) => tx.emit('order.created', a.storeId, { order: { id: o.id } } as never));
    const version = h.storage.admin.schemaVersion;
    const current = { test: await h.storage.admin.dump('test'), live: await h.storage.admin.dump('live') };
    const previous = structuredClone(current);
    previous.test.schema_version = previous.live.schema_version = version - 1;
    await h.storage.admin.reset();
    await h.storage.admin.restore(previous);
    const after = { test: await h.storage.admin.dump('test'), live: await h.storage.admin.dump('live') };
    expect(after.test.schema_version).toBe(version);
    expect(JSON.stringify(after)).toBe(JSON.stringify(current));
  });
});
