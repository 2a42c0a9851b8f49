import { expect, it } from 'vitest';
import pg from 'pg';
import { describePostgres } from '../../store/contract/harness.js';
import { category, entrega, gate, id, order, simpleOutbox, storeWithIntegration, T0, webhook } from '../../store/contract/fixtures.js';
import { LEASE_EXPIRED } from '../../../../emulator/adapters/postgres/webhook-claims.js';
import { RETRY_DELAYS_MS } from '../../../../emulator/webhooks/retry-schedule.js';
import type { Change } from '../../../../emulator/store/changes.js';
import type { StoragePort, Tx } from '../../../../emulator/store/port.js';
import { ENV_TABLES } from '../../../../emulator/adapters/postgres/schema.js';
import { MAX_RUNS } from '../../../../emulator/adapters/postgres/env-store.js';
import { loadFactor, waitFor } from '../../../helpers/wait.js';

// Two PostgresStorage instances on one database, as two emulator processes: every guarantee that
// DESIGN's "Storage and the team sandbox" gives across processes.

const created = (n: number) => ({ order: { id: `ord_${n}` } }) as never;

describePostgres('two processes on one sandbox', (h) => {
  it('lets a reader paging the feed while two processes write see every event once, in order', async () => {
    const a = h.storage;
    const b = await h.openAnother();
    const { storeId, integrationId } = await storeWithIntegration(a.env('test'));
    const perWriter = 60;
    let writing = 2;
    const write = async (storage: StoragePort, writer: number) => {
      for (let i = 0; i < perWriter; i++) {
        await storage.env('test').tx(async (tx) => {
          // Some work before and after the event, so that transactions overlap.
          await tx.orders.lastNumber(storeId);
          await tx.emit('order.created', storeId, created(writer * 1000 + i));
          await tx.stores.byId(storeId);
        });
      }
      writing--;
    };
    const seen: number[] = [];
    const read = async () => {
      let after = 0;
      for (;;) {
        const done = writing === 0;
        const page = await b.env('test').events.feedPage({ integrationId, after, cutoff: 0, types: ['order.created'], limit: 7 });
        for (const e of page) seen.push(e.seq);
        if (page.length) after = page[page.length - 1]!.seq;
        if (done && page.length === 0) return;
      }
    };
    await Promise.all([write(a, 1), write(b, 2), read()]);
    expect(seen).toHaveLength(2 * perWriter);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(Array.from({ length: 2 * perWriter }, (_, i) => i + 1));
  });

  it('gives a key claimed on two processes at once to one of them', async () => {
    const b = await h.openAnother();
    for (let round = 0; round < 20; round++) {
      const claims = await Promise.all([
        h.storage.coordination.idempotency.claim('test', 'int_1', `k${round}`, 'fp', T0),
        b.coordination.idempotency.claim('test', 'int_1', `k${round}`, 'fp', T0),
      ]);
      expect(claims.map((c) => c.kind).sort()).toEqual(['fresh', 'in_progress']);
    }
  });

  it('frees the claim of a process that died once its lease ran out', async () => {
    // Leases of 3 s, renewed every second (the default is 30 s): short, so that the test waits little
    // for a death, and longer with the machine's load, so that a renewal late on a busy machine never
    // lets the lease of a live process run out (600 ms did, once, under the full suite).
    const leaseMs = Math.round(3_000 * loadFactor());
    const dead = await h.openAnother({ leaseMs });
    const key = `lease-${Date.now()}`;
    expect(await dead.coordination.idempotency.claim('test', 'int_1', key, 'fp', T0)).toEqual({ kind: 'fresh' });
    expect(await dead.coordination.batches.acquire('test', 'int_1')).toBe(true);
    // Alive, it renews its leases: both move forward, twice, and the key and the gate stay its own.
    const leases = await leaseReader(h.database!.url, key);
    try {
      const first = await leases.read();
      await waitFor(async () => {
        const now = await leases.read();
        return now.key > first.key + leaseMs / 2 && now.gate > first.gate + leaseMs / 2;
      }, () => `two renewals of the leases written at ${JSON.stringify(first)}`);
      expect(await h.storage.coordination.idempotency.claim('test', 'int_1', key, 'fp', T0)).toEqual({ kind: 'in_progress' });
      expect(await h.storage.coordination.batches.acquire('test', 'int_1')).toBe(false);
    } finally {
      await leases.close();
    }
    await dead.close(); // dies: no more renewals
    // Free once its leases ran out: the other process takes the key and the gate.
    await waitFor(async () => (await h.storage.coordination.idempotency.claim('test', 'int_1', key, 'fp', T0)).kind === 'fresh', () => 'the dead process\'s key to be free');
    await waitFor(() => h.storage.coordination.batches.acquire('test', 'int_1'), () => 'the dead process\'s batch gate to be free');
  });

  it('counts one rate budget across processes: 130 hits, 120 allowed', async () => {
    const b = await h.openAnother();
    const minute = Math.floor(T0 / 60_000) * 60_000;
    const hits = await Promise.all(
      Array.from({ length: 130 }, (_, i) => (i % 2 ? b : h.storage).coordination.windows.hit('requests', 'int_1', minute + 1000)),
    );
    expect(hits.filter((x) => x.allowed)).toHaveLength(120);
    expect(h.storage.coordination.windows.limit('requests')).toBe(120);
  });

  it('never lets two processes claim one delivery', async () => {
    const b = await h.openAnother();
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.webhooks.save(webhook(storeId, integrationId));
    for (let i = 0; i < 60; i++) await env.webhooks.insertDelivery({ id: id('dlv'), integrationId, eventId: `evt_${i}`, eventType: 'order.created', body: '{}' }, T0);
    const taken: string[][] = [[], []];
    const drain = async (storage: StoragePort, k: number) => {
      for (;;) {
        const claimed = await storage.env('test').webhooks.claimDue(T0, 4, { owner: `p${k}`, until: Date.now() + 60_000 });
        if (claimed.length === 0) return;
        taken[k]!.push(...claimed.map((d) => d.id));
      }
    };
    await Promise.all([drain(h.storage, 0), drain(b, 1), drain(h.storage, 0), drain(b, 1)]);
    const all = [...taken[0]!, ...taken[1]!];
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    expect(taken[0]!.length).toBeGreaterThan(0);
    expect(taken[1]!.length).toBeGreaterThan(0);
  });

  it('takes back a claim whose lease ran out as one failed attempt, and refuses its old token', async () => {
    const b = await h.openAnother();
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.webhooks.save(webhook(storeId, integrationId));
    const dlv = id('dlv');
    await env.webhooks.insertDelivery({ id: dlv, integrationId, eventId: 'evt_1', eventType: 'order.created', body: '{}' }, T0);
    const realNow = Date.now();
    const [claimed] = await env.webhooks.claimDue(T0, 1, { owner: 'dead', until: realNow + 15_000 });
    // Still under its lease: nobody takes it back.
    expect(await b.env('test').webhooks.expireLeases(realNow + 14_000, T0 + 5)).toBe(0);
    expect(await b.env('test').webhooks.recoverInterrupted(T0 + 5)).toBe(0);
    const [one, two] = await Promise.all([
      b.env('test').webhooks.expireLeases(realNow + 16_000, T0 + 20),
      h.storage.env('test').webhooks.expireLeases(realNow + 16_000, T0 + 20),
    ]);
    expect(one + two).toBe(1);
    expect(await env.webhooks.delivery(dlv)).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: T0 + 20 + RETRY_DELAYS_MS[0]!, updatedAt: T0 + 20 });
    expect(await env.webhooks.attempts(dlv)).toEqual([
      { deliveryId: dlv, number: 1, attemptedAt: T0, manual: false, succeeded: false, responseStatus: null, error: LEASE_EXPIRED, durationMs: 20 },
    ]);
    expect(await env.webhooks.settle(dlv, claimed!.claimToken, { status: 'succeeded', attemptCount: 1, nextAttemptAt: null }, T0 + 30)).toBe(false);
    // The next attempt is claimed afresh, with a new token.
    const [again] = await b.env('test').webhooks.claimDue(T0 + 20 + RETRY_DELAYS_MS[0]!, 1, { owner: 'b', until: Date.now() + 15_000 });
    expect(again!.claimToken).not.toBe(claimed!.claimToken);
    expect(await b.env('test').webhooks.settle(dlv, again!.claimToken, { status: 'succeeded', attemptCount: 2, nextAttemptAt: null }, T0 + 40)).toBe(true);
  });

  it('takes one use of a fault on one process only', async () => {
    const b = await h.openAnother();
    await h.storage.coordination.faults.add({ path: '/orders', status: 503, times: 1 });
    // A request reads the shared state first (the port's sharedState), then looks for a fault.
    await b.coordination.sharedState();
    const taken = await Promise.all([h.storage.coordination.faults.take('GET', '/orders'), b.coordination.faults.take('GET', '/orders')]);
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(await b.coordination.faults.take('GET', '/orders')).toBeUndefined();
  });

  it('answers a fault lookup at once while none exists, and sees one added on another process', async () => {
    const b = await h.openAnother();
    await b.coordination.sharedState();
    // No fault in the sandbox: no round trip on the request path.
    expect(b.coordination.faults.take('GET', '/orders')).toBeUndefined();
    expect(b.coordination.homologation.takeArmed('int_1')).toBeUndefined();
    await h.storage.coordination.faults.add({ path: '/orders', status: 429, times: 1 });
    await h.storage.coordination.homologation.arm('int_1', [{ status: 503, retry_after: 1, call_seq: null }]);
    // The next request on the other process reads the shared state first, and finds them.
    await b.coordination.sharedState();
    expect(await b.coordination.faults.take('GET', '/orders')).toMatchObject({ status: 429, times: 0 });
    expect(await b.coordination.homologation.takeArmed('int_1')).toEqual({ status: 503, retry_after: 1, call_seq: null });
    // A chaos set on one process is what the other reads.
    await h.storage.coordination.chaos.set({ duplicate_rate: 0.25, reorder: false, delay_ms: 0 });
    await b.coordination.sharedState();
    expect(await b.coordination.chaos.get()).toEqual({ duplicate_rate: 0.25, reorder: false, delay_ms: 0 });
  });

  it('shares the clock and the reset generation, and tells every process of a reset', async () => {
    const b = await h.openAnother();
    const resets: Change[] = [];
    b.changes.on('reset', (c) => resets.push(c));
    expect(await b.coordination.clock.load()).toBeNull();
    await h.storage.coordination.clock.save({ mode: 'manual', offsetMs: 3_600_000, frozenAt: T0 });
    const before = await b.coordination.sharedState();
    expect(before!.clock).toEqual({ mode: 'manual', offsetMs: 3_600_000, frozenAt: T0 });
    await h.storage.admin.reset();
    expect((await b.coordination.sharedState())!.generation).toBeGreaterThan(before!.generation);
    await expect.poll(() => resets.length, { timeout: 10_000 }).toBe(1);
  });

  it('tells the other process what a transaction changed, after its commit', async () => {
    const b = await h.openAnother();
    const seen: Change[] = [];
    for (const topic of ['auth', 'orders', 'events'] as const) b.changes.on(topic, (c) => seen.push(c));
    const mine: Change[] = [];
    h.storage.changes.on('orders', (c) => mine.push(c));
    const env = h.storage.env('live');
    const { storeId } = await env.tx(async (tx) => {
      const ids = await storeWithIntegration(tx);
      await tx.orders.insert(order(ids.storeId, 1, { id: 'ord_seen' }));
      await tx.emit('order.created', ids.storeId, created(1));
      return ids;
    });
    await expect.poll(() => seen.map((c) => c.topic).sort(), { timeout: 10_000 }).toEqual(['auth', 'events', 'orders']);
    expect(seen).toContainEqual({ topic: 'orders', environment: 'live', storeId, orderId: 'ord_seen' });
    // This process's own change is published here once, at commit.
    expect(mine).toEqual([{ topic: 'orders', environment: 'live', storeId, orderId: 'ord_seen' }]);
    await expect(env.tx(async (tx) => {
      await tx.orders.insert(order(storeId, 2, { id: 'ord_never' }));
      throw new Error('rolled back');
    })).rejects.toThrow();
    // A change committed after the rollback: once the other process has heard of it, it would have heard of the first.
    await env.tx(async (tx) => {
      await tx.orders.insert(order(storeId, 3, { id: 'ord_after' }));
    });
    await expect.poll(() => seen.some((c) => c.topic === 'orders' && c.orderId === 'ord_after')).toBe(true);
    expect(seen.some((c) => c.topic === 'orders' && c.orderId === 'ord_never')).toBe(false);
  });

  it('makes the demo stores once when two processes start together', async () => {
    const b = await h.openAnother();
    let made = 0;
    const make = (storage: StoragePort) => storage.coordination.seeds.once(async () => {
      const saved = await storage.coordination.seeds.load();
      if (saved) return saved;
      made++;
      await new Promise((r) => setTimeout(r, 100));
      const seeds = [{ environment: 'test' as const, storeId: 'str_1', integrationId: 'int_1', credential: 'svs_demo' }];
      await storage.coordination.seeds.save(seeds);
      return seeds;
    });
    const [one, two] = await Promise.all([make(h.storage), make(b)]);
    expect(made).toBe(1);
    expect(one).toEqual(two);
  });

  it('runs a unit of work again when a concurrent one inserted the same key first', async () => {
    const b = await h.openAnother();
    const { storeId, integrationId } = await storeWithIntegration(h.storage.env('test'));
    let runs = 0;
    // Read, then insert when missing: on two processes at once, one meets the unique index. Each
    // inserts only once both have read (a run again finds both read already), so that neither reads
    // after the other committed, however the machine schedules them (a 50 ms pause was the window).
    let read = 0;
    const bothRead = () => new Promise<void>((resolve) => {
      const check = () => (read >= 2 ? resolve() : setTimeout(check, 5));
      check();
    });
    const upsert = (storage: StoragePort) => storage.env('test').tx(async (tx) => {
      runs++;
      const found = await tx.catalog.categoryByExternal(integrationId, 'CAT-RACE');
      read++;
      await bothRead();
      if (found) return 'updated';
      await tx.catalog.insertCategory(category(storeId, integrationId, { externalId: 'CAT-RACE' }));
      return 'inserted';
    });
    const outcomes = await Promise.all([upsert(h.storage), upsert(b)]);
    expect(outcomes.sort()).toEqual(['inserted', 'updated']);
    // At least one run again; on a loaded machine PostgreSQL may break a deadlock of a run again too.
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(2 * MAX_RUNS);
  });

  it('runs a unit of work again when the database broke a deadlock by rolling it back', async () => {
    const b = await h.openAnother();
    const env = h.storage.env('test');
    const { storeId } = await storeWithIntegration(env);
    await env.orders.insert(order(storeId, 1, { id: 'ord_one' }));
    await env.orders.insert(order(storeId, 2, { id: 'ord_two' }));
    let runs = 0;
    // Each locks one order, waits for the other to lock its own, then wants the other's: a deadlock.
    let locked = 0;
    const both = () => new Promise<void>((resolve) => {
      const check = () => (locked >= 2 ? resolve() : setTimeout(check, 5));
      check();
    });
    const cross = (storage: StoragePort, first: string, second: string) => storage.env('test').tx(async (tx) => {
      runs++;
      const a = await tx.orders.byId(first, { lock: true });
      locked++;
      await both();
      const other = await tx.orders.byId(second, { lock: true });
      await tx.orders.update({ ...a!, notes: `${a!.notes}+` });
      return other!.id;
    });
    const out = await Promise.all([cross(h.storage, 'ord_one', 'ord_two'), cross(b, 'ord_two', 'ord_one')]);
    expect(out.sort()).toEqual(['ord_one', 'ord_two']);
    // At least one run again; on a loaded machine PostgreSQL may break a deadlock of a run again too.
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(2 * MAX_RUNS);
    expect((await env.orders.byId('ord_one'))!.notes).toBe('+');
    expect((await env.orders.byId('ord_two'))!.notes).toBe('+');
  });

  it('holds a row read with lock until its transaction ends (orders, entregas, snapshots)', async () => {
    const b = await h.openAnother();
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.orders.insert(order(storeId, 1, { id: 'ord_locked' }));
    await env.entregas.insert(entrega(storeId, integrationId, { id: 'ent_locked' }));
    await env.snapshots.insert({ integrationId, snapshotId: 'snap', syncRunId: 'snc_1', status: 'open' as never, lastPart: 0, startedAt: T0 });
    const reads = [
      (tx: Tx) => tx.orders.byId('ord_locked', { lock: true }),
      (tx: Tx) => tx.entregas.byId('ent_locked', { lock: true }),
      (tx: Tx) => tx.snapshots.get({ integrationId, snapshotId: 'snap' }, { lock: true }),
    ];
    for (const read of reads) {
      const order_: string[] = [];
      const held = gate();
      const first = env.tx(async (tx) => {
        await read(tx);
        order_.push('first locked');
        await held.opened;
        order_.push('first ends');
      });
      await expect.poll(() => order_.length).toBe(1);
      const second = b.env('test').tx(async (tx) => {
        await read(tx);
        order_.push('second locked');
      });
      // The second's statement is in the database, waiting for the first's lock.
      await waitFor(() => lockWaiters(h.database!.url), () => 'a backend waiting for a lock');
      expect(order_).toEqual(['first locked']);
      held.open();
      await Promise.all([first, second]);
      expect(order_).toEqual(['first locked', 'first ends', 'second locked']);
    }
  });

  it('fails a unit of work whose statement failed even when the work caught the error', async () => {
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.catalog.insertCategory(category(storeId, integrationId, { id: 'cat_taken' }));
    await expect(env.tx(async (tx) => {
      await tx.orders.insert(order(storeId, 1, { id: 'ord_lost' }));
      await tx.catalog.insertCategory(category(storeId, integrationId, { id: 'cat_taken' })).catch(() => undefined);
      return 'went on';
    })).rejects.toMatchObject({ code: '23505' });
    expect(await env.orders.byId('ord_lost')).toBeUndefined();
  });

  it('migrates once when two processes open a new sandbox at the same time', async () => {
    const url = h.database!.url;
    const { PostgresStorage } = await import('../../../../emulator/adapters/postgres/index.js');
    const opened = await Promise.all([0, 1, 2].map(() => PostgresStorage.open(url, h.context, { schemaPrefix: 'racing' })));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT value FROM racing_shared.meta WHERE key = 'schema_version'");
      expect(Number(rows[0].value)).toBe(opened[0]!.admin.schemaVersion);
      const tables = await client.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'racing_test'");
      // Every environment table: a bundle's, and the positions.
      expect(tables.rows[0].n).toBe(ENV_TABLES.length);
    } finally {
      await client.end();
      for (const s of opened) await s.close();
    }
  });

  it('queues a delivery with its event through the outbox on either process', async () => {
    const b = await h.openAnother();
    h.outbox = simpleOutbox(() => T0);
    const env = b.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    await env.webhooks.save(webhook(storeId, integrationId));
    await Promise.all([0, 1, 2, 3].map((i) => ((i % 2 ? b : h.storage).env('test').tx((tx) => tx.emit('order.created', storeId, created(i))))));
    const deliveries = await h.storage.env('test').webhooks.list(integrationId, null, 10);
    expect(deliveries.map((d) => d.seq).sort()).toEqual([1, 2, 3, 4]);
  });
});

/**
 * Reads the lease deadlines of an idempotency key (in whichever test sandbox of the file's database
 * holds it) and of int_1's batch gate there.
 */
async function leaseReader(url: string, key: string): Promise<{ read(): Promise<{ key: number; gate: number }>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query("SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'idempotency_keys' AND table_schema LIKE '%\\_test'");
  let schema: string | undefined;
  for (const { s } of rows) {
    const found = await client.query(`SELECT 1 FROM "${s}".idempotency_keys WHERE key = $1`, [key]);
    if (found.rowCount) schema = s;
  }
  if (!schema) throw new Error(`no sandbox holds the key ${key}`);
  const shared = `${schema.slice(0, -'_test'.length)}_shared`;
  return {
    async read() {
      const k = await client.query(`SELECT lease_until FROM "${schema}".idempotency_keys WHERE key = $1`, [key]);
      const g = await client.query(`SELECT lease_until FROM "${shared}".batch_gate WHERE integration_id = 'int_1'`);
      return { key: Number(k.rows[0].lease_until), gate: Number(g.rows[0].lease_until) };
    },
    close: () => client.end(),
  };
}

/** Whether a backend of this database waits for a lock now. */
async function lockWaiters(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    return rows[0].n > 0;
  } finally {
    await client.end();
  }
}
