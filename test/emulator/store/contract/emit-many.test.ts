import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { id, simpleOutbox, storeWithIntegration, T0, webhook } from './fixtures.js';
import type { EventRecord } from '../../../../emulator/orders/repository.js';

// issue 25, eighth step: a server database writes an emit's events and deliveries with named
// statements of a few shapes (up to 8 events and 8 deliveries each, more in more statements). However
// many there are, every one is written once, in its position's order, and what follows goes on from
// the last one.

const data = (n: number) => ({ order: { id: `ord_${n}`, notas: `it's \\ "quoted" \u2028 🍕 $${n} ;` } }) as never;

describeAdapters('an emit with more events and deliveries than one statement carries', (h) => {
  it('writes every event and delivery once, in order, and the next positions follow', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    // 11 integrations of the store, each with a webhook: an emit to the store is 11 events and 11 deliveries.
    const integrations = [a.integrationId];
    for (let i = 0; i < 10; i++) {
      const other = id('int');
      await env.integrations.insert({ id: other, storeId: a.storeId, system: `otro${i}`, scopes: [], settings: {} as never }, T0 + 1 + i);
      integrations.push(other);
    }
    for (const integrationId of integrations) await env.webhooks.save(webhook(a.storeId, integrationId));
    h.outbox = simpleOutbox(() => h.clock.now());
    const before = await env.events.maxSeq();
    const written: EventRecord[] = await env.tx(async (tx) => {
      const first = await tx.emit('order.created', a.storeId, data(1));
      // A read in between sends the first emit's writes ahead of it: it sees all of them.
      expect(await tx.events.maxSeq()).toBe(first[first.length - 1]!.seq);
      const second = await tx.emit('order.updated', a.storeId, data(2));
      return [...first, ...second];
    });
    expect(written).toHaveLength(22);
    expect(written.map((e) => e.seq)).toEqual(Array.from({ length: 22 }, (_, i) => before + 1 + i));
    for (const event of written) expect(await env.events.byId(event.id)).toEqual(event);
    expect(await env.events.maxSeq()).toBe(before + 22);
    // Each integration's deliveries: its two events, newest first (the list's order), one delivery each.
    for (const integrationId of integrations) {
      const own = written.filter((e) => e.integrationId === integrationId);
      expect(own.map((e) => e.type)).toEqual(['order.created', 'order.updated']);
      const deliveries = await env.webhooks.list(integrationId, null, 10);
      expect(deliveries.map((d) => d.eventId)).toEqual(own.map((e) => e.id).reverse());
      expect(deliveries.map((d) => JSON.parse(d.body))).toEqual([...own].reverse().map((e) => ({ id: e.id, type: e.type, data: e.data })));
    }
    // The stored text is the data's JSON, quotes, backslashes and all.
    const page = await env.events.feedPage({ integrationId: integrations[10]!, after: 0, cutoff: 0, types: ['order.created', 'order.updated'], limit: 10 });
    expect(page.map((e) => e.data.toString('utf8'))).toEqual([JSON.stringify(data(1)), JSON.stringify(data(2))]);
    const [next] = await env.tx((tx) => tx.emit('order.created', a.storeId, data(3), a.integrationId));
    expect(next!.seq).toBe(before + 23);
  });
});
