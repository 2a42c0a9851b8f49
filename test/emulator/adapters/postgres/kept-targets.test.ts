import { describe, expect, it } from 'vitest';
import type { EnvStore, Tx } from '../../../../emulator/store/port.js';
import type { Targets } from '../../../../emulator/adapters/postgres/events.js';
import { KeptTargets } from '../../../../emulator/adapters/postgres/kept-targets.js';
import { LocalChangeFeed } from '../../../../emulator/store/changes.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import { admin } from '../../../helpers/postgres.js';
import { describePostgres } from '../../store/contract/harness.js';
import { id, order, simpleOutbox, storeWithIntegration, webhook } from '../../store/contract/fixtures.js';

// issue 25, fourteenth step: the targets of a store's events (its integrations and their webhooks)
// are kept between units of work, so a write that emits reads none; the emit's writes check their
// stamp under the feed counter's lock as they check targets read in the transaction, so kept
// targets that went stale cost a run more, never a wrong event.

const created = (n: number) => ({ order: { id: `ord_${n}` } }) as never;
const targets = (stamp: string): Targets => ({ targets: [], stamp });

describe('KeptTargets', () => {
  it('drops every store\'s targets on a change of a store, integration or credential, a webhook\'s configuration or a reset, of its environment', () => {
    const feed = new LocalChangeFeed(false);
    const kept = new KeptTargets(feed, 'test');
    const fill = () => kept.keep('str_1', targets('a'), kept.epoch);
    fill();
    expect(kept.of('str_1')).toEqual({ ...targets('a'), kept: true });
    // Changes that leave the targets as they are: deliveries, another environment, the catalog.
    feed.publish({ topic: 'webhooks', environment: 'test', storeId: 'str_1', config: false });
    feed.publish({ topic: 'auth', environment: 'live' });
    feed.publish({ topic: 'webhooks', environment: 'live', storeId: null, config: true });
    feed.publish({ topic: 'catalog', environment: 'test', storeId: 'str_1' });
    expect(kept.of('str_1')?.stamp).toBe('a');
    for (const change of [
      { topic: 'auth', environment: 'test' },
      { topic: 'webhooks', environment: 'test', storeId: null, config: true },
      { topic: 'reset', environment: null },
    ] as const) {
      feed.publish(change);
      expect(kept.of('str_1')).toBeUndefined();
      fill();
    }
  });

  it('keeps no targets read before a drop, nor targets that were themselves kept', () => {
    const kept = new KeptTargets(new LocalChangeFeed(false), 'test');
    const began = kept.epoch;
    kept.drop();
    kept.keep('str_1', targets('a'), began);
    expect(kept.of('str_1')).toBeUndefined();
    kept.keep('str_1', { ...targets('a'), kept: true }, kept.epoch);
    expect(kept.of('str_1')).toBeUndefined();
  });

  it('is bounded: past a thousand stores, it starts again', () => {
    const kept = new KeptTargets(new LocalChangeFeed(false), 'test');
    for (let i = 0; i <= 1000; i++) kept.keep(`str_${i}`, targets(String(i)), kept.epoch);
    expect(kept.of('str_0')).toBeUndefined();
    expect(kept.of('str_1000')?.stamp).toBe('1000');
  });
});

/** Runs `work` as a request of its own and answers how many round trips and statements it sent. */
async function counted(work: () => Promise<unknown>): Promise<{ trips: number; statements: number }> {
  roundTrips.countRequests();
  const route = `kept ${Math.random()}`;
  await roundTrips.inRequest(async () => {
    roundTrips.name(route);
    await work();
    roundTrips.answered();
  });
  const { trips, statements } = roundTrips.snapshot().requests[route]!;
  return { trips, statements };
}

/** Emits an event of `storeId` in a unit of work, counting its runs. */
async function emitCounting(env: EnvStore, storeId: string) {
  let runs = 0;
  const events = await env.tx(async (tx: Tx) => {
    runs++;
    return tx.emit('order.created', storeId, created(1));
  });
  return { runs, events };
}

/** Changes the test database behind every process's back: no notice is sent. */
async function untold(url: string, sql: string, values: unknown[]): Promise<void> {
  await admin(async (c) => {
    const { rows } = await c.query<{ schema: string }>("SELECT schemaname AS schema FROM pg_tables WHERE tablename = 'webhooks' AND schemaname LIKE '%test'");
    await c.query(sql.replace('%SCHEMA%', `"${rows[0]!.schema}"`), values);
  }, url);
}

describePostgres('the targets of a store\'s events, kept between units of work', (h) => {
  it('spare the next emit of the store its read: a statement fewer', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.webhooks.save(webhook(storeId, integrationId));
    h.outbox = simpleOutbox(() => h.clock.now());
    const first = await counted(() => env.tx((tx) => tx.emit('order.created', storeId, created(1))));
    expect(first.trips).toBe(2);
    // BEGIN is answered before the writes go with the COMMIT: a unit of work that sends nothing else
    // still makes two round trips.
    expect(await counted(() => env.tx((tx) => tx.emit('order.created', storeId, created(2))))).toEqual({ trips: 2, statements: first.statements - 1 });
    // The kept targets gave the delivery its webhook, as read ones do.
    expect(await env.webhooks.list(integrationId, null, 10)).toHaveLength(2);
  });

  it('spare an order\'s lock the read of its store\'s targets once the order was written or locked here', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const o = order(storeId, 1);
    await env.tx((tx) => tx.orders.insert(o));
    const lockAndEmit = () => env.tx(async (tx) => {
      await tx.orders.byId(o.id, { lock: true });
      return tx.emit('order.status_changed', storeId, created(1));
    });
    // The store's targets are not kept yet: read with the lock (one statement more), then kept.
    const first = await counted(lockAndEmit);
    const second = await counted(lockAndEmit);
    expect(second).toEqual({ trips: first.trips, statements: first.statements - 1 });
    const events = await lockAndEmit();
    expect(events.map((e) => e.integrationId)).toEqual([integrationId]);
  });

  it('that a change told to no process made stale fail the check: the unit of work runs again with the targets as they are', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.webhooks.save(webhook(storeId, integrationId));
    h.outbox = async (tx, event) => ((await tx.webhooks.get(event.integrationId))?.paused ? 0 : simpleOutbox(() => h.clock.now())(tx, event));
    expect((await emitCounting(env, storeId)).runs).toBe(1);
    await untold(h.database!.url, 'UPDATE %SCHEMA%.webhooks SET paused = true WHERE integration_id = $1', [integrationId]);
    const second = await emitCounting(env, storeId);
    expect(second.runs).toBe(2);
    expect(await env.webhooks.list(integrationId, null, 10)).toHaveLength(1); // the first event's delivery only
    // The run that read them kept them: the next emit runs once.
    expect((await emitCounting(env, storeId)).runs).toBe(1);
  });

  it('are dropped by this process\'s own change of an integration or a webhook: the next emit runs once, with the change', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    expect((await emitCounting(env, storeId)).runs).toBe(1);
    const second = id('int');
    await env.integrations.insert({ id: second, storeId, system: 'otro', scopes: [], settings: {} as never }, h.clock.now());
    const after = await emitCounting(env, storeId);
    expect(after.runs).toBe(1);
    expect(after.events.map((e) => e.integrationId)).toEqual([integrationId, second]);
  });

  it('are not used by a unit of work that changed an integration itself before its emit', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await emitCounting(env, storeId);
    const second = id('int');
    let runs = 0;
    const events = await env.tx(async (tx) => {
      runs++;
      await tx.integrations.insert({ id: second, storeId, system: 'otro', scopes: [], settings: {} as never }, h.clock.now());
      return tx.emit('order.created', storeId, created(1));
    });
    expect(runs).toBe(1);
    expect(events.map((e) => e.integrationId)).toEqual([integrationId, second]);
  });
});
