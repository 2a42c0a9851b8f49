import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { id, storeWithIntegration, T0, webhook } from './fixtures.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';

// issue 25: a server database's claim of due deliveries brings each one's webhook in the same
// statement (the dispatcher then makes no read of it per attempt), and sends its change notice
// itself; the embedded database leaves the webhook out and the attempt reads it, at once, itself.

const lease = { owner: 'process-a', until: Date.now() + 60_000 };

describeAdapters('the webhook of a claimed delivery', (h) => {
  it('comes with the claim, as the webhook read alone gives it, at no round trip more', async () => {
    const env = h.storage.env('test');
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId, { url: 'https://erp.example/hooks/ñ' }));
    const first = id('dlv');
    const second = id('dlv');
    for (const [i, d] of [first, second].entries()) {
      await env.webhooks.insertDelivery({ id: d, integrationId: a.integrationId, eventId: `evt_${i}`, eventType: 'order.created', body: '{}' }, T0 + i);
    }
    const here: unknown[] = [];
    h.storage.changes.on('webhooks', (c) => here.push(c));
    const other = h.kind === 'postgres' ? await h.openAnother() : null;
    const heard = other && new Promise((resolve) => other.changes.on('webhooks', (c) => c.storeId === a.storeId && resolve(c)));
    const before = roundTrips.total.trips;
    const [claimed] = await env.webhooks.claimDue(T0, 1, lease);
    if (h.kind === 'sqlite') return expect(claimed!.webhook).toBeUndefined();
    // The claim, which sends its change notice itself (issue 25: it was a statement of its own).
    expect(roundTrips.total.trips - before).toBe(1);
    // This process publishes the change at once; another hears it, naming the delivery's store.
    expect(here).toEqual([{ topic: 'webhooks', environment: 'test', storeId: a.storeId, config: false }]);
    expect(await heard).toEqual({ topic: 'webhooks', environment: 'test', storeId: a.storeId, config: false });
    expect(Object.keys(claimed!)).not.toContain('told');
    expect(claimed!.webhook).toEqual(await env.webhooks.get(a.integrationId));
    expect(claimed!.webhook!.url).toBe('https://erp.example/hooks/ñ');
    // A claim by hand brings it too; a delivery whose webhook is gone brings null.
    await env.webhooks.settle(claimed!.id, claimed!.claimToken, { status: 'failed', attemptCount: 9, nextAttemptAt: null }, T0 + 1);
    expect((await env.webhooks.claim(first, 'failed', T0 + 2, lease))!.webhook).toEqual(await env.webhooks.get(a.integrationId));
    const manual = await env.webhooks.claim(second, 'pending', T0 + 2, lease);
    expect(Object.keys(manual!).filter((k) => k.startsWith('w_'))).toEqual([]);
    expect(manual).toMatchObject({ id: second, status: 'delivering', webhook: { integrationId: a.integrationId } });
  });
});

describeAdapters('an attempt settled in one statement', (h) => {
  it('settles the delivery by its token and records its attempt, answering the webhook; nothing when the claim was lost', async () => {
    const env = h.storage.env('test');
    if (h.kind === 'sqlite') return expect(env.webhooks.settleWithAttempt).toBeUndefined();
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    const d = id('dlv');
    await env.webhooks.insertDelivery({ id: d, integrationId: a.integrationId, eventId: 'evt_1', eventType: 'order.created', body: '{}' }, T0);
    const attempt = (n: number) => ({ deliveryId: d, attemptedAt: T0 + n, manual: false, succeeded: false, responseStatus: 500, error: null, durationMs: 7 });
    const [claimed] = await env.webhooks.claimDue(T0, 1, lease);
    // Another process hears of it (the notice names the delivery's store), and so does this one, at once.
    const other = await h.openAnother();
    const heard = new Promise((resolve) => other.changes.on('webhooks', (c) => c.storeId === a.storeId && resolve(c)));
    const here: unknown[] = [];
    h.storage.changes.on('webhooks', (c) => here.push(c));
    const before = roundTrips.total.trips;
    const settled = await env.webhooks.settleWithAttempt!(claimed!.claimToken, { status: 'pending', attemptCount: 1, nextAttemptAt: T0 + 60_000 }, T0 + 2, attempt(1));
    // One statement, which sends its change notice itself (the transaction it replaces was four round
    // trips and its COMMIT; a notice of its own, one more).
    expect(roundTrips.total.trips - before).toBe(1);
    expect(here).toEqual([{ topic: 'webhooks', environment: 'test', storeId: a.storeId, config: false }]);
    expect(await heard).toEqual({ topic: 'webhooks', environment: 'test', storeId: a.storeId, config: false });
    expect(settled).toEqual({ webhook: await env.webhooks.get(a.integrationId) });
    expect(await env.webhooks.delivery(d)).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: T0 + 60_000, updatedAt: T0 + 2 });
    expect(await env.webhooks.attempts(d)).toEqual([{ ...attempt(1), number: 1 }]);
    // Settled once: the same token again writes nothing.
    expect(await env.webhooks.settleWithAttempt!(claimed!.claimToken, { status: 'failed', attemptCount: 9, nextAttemptAt: null }, T0 + 3, attempt(2))).toBeUndefined();
    expect((await env.webhooks.attempts(d)).map((x) => x.number)).toEqual([1]);
    // The next claim's attempt is number 2.
    const [again] = await env.webhooks.claimDue(T0 + 60_000, 1, lease);
    await env.webhooks.settleWithAttempt!(again!.claimToken, { status: 'succeeded', attemptCount: 2, nextAttemptAt: null }, T0 + 60_001, { ...attempt(60_000), succeeded: true, responseStatus: 200 });
    expect((await env.webhooks.attempts(d)).map((x) => [x.number, x.succeeded])).toEqual([[1, false], [2, true]]);
    expect((await env.webhooks.delivery(d))!.status).toBe('succeeded');
  });
});

describeAdapters('attempts settled at once', (h) => {
  it('go in one statement, each written as it would be alone; a lost claim among them writes nothing', async () => {
    const env = h.storage.env('test');
    if (h.kind === 'sqlite') return expect(env.webhooks.settleWithAttempt).toBeUndefined();
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    const ids = [id('dlv'), id('dlv'), id('dlv'), id('dlv')];
    for (const [i, d] of ids.entries()) {
      await env.webhooks.insertDelivery({ id: d, integrationId: a.integrationId, eventId: `evt_${i}`, eventType: 'order.created', body: '{}' }, T0 + i);
    }
    const claimed = await env.webhooks.claimDue(T0 + 10, 4, lease);
    expect(claimed.map((c) => c.id)).toEqual(ids);
    const attempt = (d: string, succeeded: boolean) => ({
      deliveryId: d, attemptedAt: T0 + 11, manual: false, succeeded, responseStatus: succeeded ? 200 : 500, error: null, durationMs: 3,
    });
    // The first delivery's claim is lost before the others settle (settled with its token already).
    const [lost, ...rest] = claimed;
    await env.webhooks.settleWithAttempt!(lost!.claimToken, { status: 'succeeded', attemptCount: 1, nextAttemptAt: null }, T0 + 12, attempt(lost!.id, true));
    const before = roundTrips.total.trips;
    const answers = await Promise.all([
      env.webhooks.settleWithAttempt!(lost!.claimToken, { status: 'failed', attemptCount: 9, nextAttemptAt: null }, T0 + 13, attempt(lost!.id, false)),
      ...rest.map((c, i) => env.webhooks.settleWithAttempt!(
        c.claimToken, i === 0 ? { status: 'pending', attemptCount: 1, nextAttemptAt: T0 + 60_000 } : { status: 'succeeded', attemptCount: 1, nextAttemptAt: null },
        T0 + 13, attempt(c.id, i !== 0),
      )),
    ]);
    // One statement for the four (they were four round trips and four commits).
    expect(roundTrips.total.trips - before).toBe(1);
    const current = await env.webhooks.get(a.integrationId);
    expect(answers).toEqual([undefined, { webhook: current }, { webhook: current }, { webhook: current }]);
    expect(await env.webhooks.delivery(ids[0]!)).toMatchObject({ status: 'succeeded', attemptCount: 1, updatedAt: T0 + 12 });
    expect(await env.webhooks.attempts(ids[0]!)).toEqual([{ ...attempt(ids[0]!, true), number: 1 }]);
    expect(await env.webhooks.delivery(ids[1]!)).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: T0 + 60_000, updatedAt: T0 + 13 });
    for (const [i, d] of ids.slice(1).entries()) {
      expect(await env.webhooks.attempts(d)).toEqual([{ ...attempt(d, i !== 0), number: 1 }]);
      if (i !== 0) expect(await env.webhooks.delivery(d)).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null, updatedAt: T0 + 13 });
    }
    // The next claim of the pending one settles alone, as its attempt number 2.
    const [again] = await env.webhooks.claimDue(T0 + 60_000, 4, lease);
    expect(again!.id).toBe(ids[1]);
    await env.webhooks.settleWithAttempt!(again!.claimToken, { status: 'succeeded', attemptCount: 2, nextAttemptAt: null }, T0 + 60_001, attempt(ids[1]!, true));
    expect((await env.webhooks.attempts(ids[1]!)).map((x) => [x.number, x.succeeded])).toEqual([[1, false], [2, true]]);
  });
});

describeAdapters('attempts settled while a statement of settlements is on its way', (h) => {
  it('wait for it and go together in the next one', async () => {
    const env = h.storage.env('test');
    if (h.kind === 'sqlite') return expect(env.webhooks.settleWithAttempt).toBeUndefined();
    const a = await storeWithIntegration(env);
    await env.webhooks.save(webhook(a.storeId, a.integrationId));
    const ids = [id('dlv'), id('dlv'), id('dlv')];
    for (const [i, d] of ids.entries()) {
      await env.webhooks.insertDelivery({ id: d, integrationId: a.integrationId, eventId: `evt_${i}`, eventType: 'order.created', body: '{}' }, T0 + i);
    }
    const claimed = await env.webhooks.claimDue(T0 + 10, 3, lease);
    const settle = (c: (typeof claimed)[number]) => env.webhooks.settleWithAttempt!(c.claimToken, { status: 'succeeded', attemptCount: 1, nextAttemptAt: null }, T0 + 12, {
      deliveryId: c.id, attemptedAt: T0 + 11, manual: false, succeeded: true, responseStatus: 200, error: null, durationMs: 3,
    });
    const before = roundTrips.total.trips;
    const first = settle(claimed[0]!);
    // The first one's statement leaves in this turn and cannot be answered before the next I/O.
    await Promise.resolve();
    const answers = await Promise.all([first, settle(claimed[1]!), settle(claimed[2]!)]);
    expect(roundTrips.total.trips - before).toBe(2);
    expect(answers.every((x) => x?.webhook?.integrationId === a.integrationId)).toBe(true);
    for (const d of ids) expect(await env.webhooks.delivery(d)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
  });
});
