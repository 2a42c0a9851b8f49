import { expect, it } from 'vitest';
import pg from 'pg';
import { describeAdapters, describePostgres } from './harness.js';
import { order, storeWithIntegration, T0 } from './fixtures.js';
import { roundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import { ClaimAnswered, type Claim, type IdempotencyClaims, type WorkClaim } from '../../../../emulator/store/coordination.js';
import type { StoragePort } from '../../../../emulator/store/port.js';

// The port's contract for an idempotency key claimed by a unit of work (`EnvStore.tx(work, claim)`,
// issue 25): the key is the request's before anything of the work takes effect; a key that is not
// the request's throws ClaimAnswered and the work writes nothing. A server database sends the claim
// with the transaction's first round trip (`IdempotencyClaims.withWork`); an adapter without
// `withWork` takes the claim before the work (the route only hands a claim to a server database's).

const response = { status: 200, body: { data: { id: 'ord_1', nota: 'Ñ' } }, headers: {} };

/** The adapter's own claim-with-work, or one built on its `claim` (SQLite has none). */
function workClaim(claims: IdempotencyClaims, integrationId: string, key: string, fingerprint: string, now = T0): WorkClaim {
  if (claims.withWork) return claims.withWork('test', integrationId, key, fingerprint, now);
  let taking: Promise<Claim> | undefined;
  const claim: WorkClaim = {
    taken: undefined,
    stored: undefined,
    takeOn: () => claim.result(),
    result: () => (taking ??= claims.claim('test', integrationId, key, fingerprint, now).then((c) => ((claim as { taken?: Claim }).taken = c))),
  };
  return claim;
}

/** A unit of work that writes a store, its integration and an order: what must not be written when the key is not the request's. */
async function writeSome(storage: StoragePort, claim: WorkClaim): Promise<{ outcome: unknown; storeId: string | null }> {
  const env = storage.env('test');
  let storeId: string | null = null;
  const outcome = await env
    .tx(async (tx) => {
      const ids = await storeWithIntegration(tx);
      storeId = ids.storeId;
      await tx.orders.insert(order(ids.storeId, 1));
      return 'done';
    }, claim)
    .catch((error: unknown) => error);
  return { outcome, storeId };
}

async function nothingWritten(storage: StoragePort, storeId: string | null): Promise<void> {
  if (storeId === null) return;
  const env = storage.env('test');
  expect(await env.stores.byId(storeId)).toBeUndefined();
  expect(await env.orders.lastNumber(storeId)).toBe(0);
}

describeAdapters('an idempotency key claimed by a unit of work', (h) => {
  it('runs and commits the work when the key is new, and holds the key for the request until its answer is stored', async () => {
    const claims = h.storage.coordination.idempotency;
    const claim = workClaim(claims, 'int_1', 'k-new', 'fp');
    const { outcome, storeId } = await writeSome(h.storage, claim);
    expect(outcome).toBe('done');
    expect(claim.taken).toEqual({ kind: 'fresh' });
    expect(await claim.result()).toEqual({ kind: 'fresh' });
    expect(await h.storage.env('test').orders.lastNumber(storeId!)).toBe(1);
    // Held: another request with the key is told it is in progress, then gets the stored answer.
    expect(await claims.claim('test', 'int_1', 'k-new', 'fp', T0)).toEqual({ kind: 'in_progress' });
    await claims.finish('test', 'int_1', 'k-new', response);
    expect(await claims.claim('test', 'int_1', 'k-new', 'fp', T0 + 1)).toEqual({ kind: 'replay', response });
  });

  it('throws ClaimAnswered with the stored answer for a finished key, and writes nothing of the work', async () => {
    const claims = h.storage.coordination.idempotency;
    expect(await claims.claim('test', 'int_1', 'k-done', 'fp', T0)).toEqual({ kind: 'fresh' });
    await claims.finish('test', 'int_1', 'k-done', response);
    const { outcome, storeId } = await writeSome(h.storage, workClaim(claims, 'int_1', 'k-done', 'fp', T0 + 1));
    expect(outcome).toBeInstanceOf(ClaimAnswered);
    expect((outcome as ClaimAnswered).claim).toEqual({ kind: 'replay', response });
    await nothingWritten(h.storage, storeId);
  });

  it('throws ClaimAnswered in_progress for a key another request holds, and conflict for a key used with another request', async () => {
    const claims = h.storage.coordination.idempotency;
    expect(await claims.claim('test', 'int_1', 'k-held', 'fp', T0)).toEqual({ kind: 'fresh' });
    const held = await writeSome(h.storage, workClaim(claims, 'int_1', 'k-held', 'fp'));
    expect((held.outcome as ClaimAnswered).claim).toEqual({ kind: 'in_progress' });
    await nothingWritten(h.storage, held.storeId);
    await claims.finish('test', 'int_1', 'k-held', response);
    const other = await writeSome(h.storage, workClaim(claims, 'int_1', 'k-held', 'another body', T0 + 1));
    expect((other.outcome as ClaimAnswered).claim).toEqual({ kind: 'conflict' });
    await nothingWritten(h.storage, other.storeId);
  });

  it('keeps the key taken when the work throws after taking it: the request stores or releases its answer', async () => {
    const claims = h.storage.coordination.idempotency;
    const claim = workClaim(claims, 'int_1', 'k-threw', 'fp');
    const env = h.storage.env('test');
    await expect(
      env.tx(async (tx) => {
        await storeWithIntegration(tx);
        throw new Error('refused by the work');
      }, claim),
    ).rejects.toThrow('refused by the work');
    expect(claim.taken).toEqual({ kind: 'fresh' });
    expect(await claims.claim('test', 'int_1', 'k-threw', 'fp', T0)).toEqual({ kind: 'in_progress' });
    await claims.release('test', 'int_1', 'k-threw');
    expect(await claims.claim('test', 'int_1', 'k-threw', 'fp', T0)).toEqual({ kind: 'fresh' });
  });

  it('stores the answer with the COMMIT on a server database when the request knows it from the work\'s result; else leaves it to the route', async () => {
    const claims = h.storage.coordination.idempotency;
    const claim = workClaim(claims, 'int_1', 'k-answer', 'fp');
    claim.answerOf = (out) => (out === 'done' ? response : undefined);
    const { outcome, storeId } = await writeSome(h.storage, claim);
    expect(outcome).toBe('done');
    expect(await h.storage.env('test').orders.lastNumber(storeId!)).toBe(1);
    if (h.kind === 'postgres') {
      // The effect and its answer committed together: a duplicate now gets the replay.
      expect(claim.stored).toEqual(response);
      expect(await claims.claim('test', 'int_1', 'k-answer', 'fp', T0 + 1)).toEqual({ kind: 'replay', response });
    } else {
      expect(claim.stored).toBeUndefined();
      expect(await claims.claim('test', 'int_1', 'k-answer', 'fp', T0 + 1)).toEqual({ kind: 'in_progress' });
    }
    // A work whose result has no answer yet (undefined) leaves the key held for the route to settle.
    const later = workClaim(claims, 'int_1', 'k-later', 'fp');
    later.answerOf = () => undefined;
    expect((await writeSome(h.storage, later)).outcome).toBe('done');
    expect(later.stored).toBeUndefined();
    expect(await claims.claim('test', 'int_1', 'k-later', 'fp', T0 + 1)).toEqual({ kind: 'in_progress' });
    // A work that throws stores no answer: the key stays held, for the route to store or release.
    const threw = workClaim(claims, 'int_1', 'k-threw-answer', 'fp');
    threw.answerOf = () => response;
    await expect(h.storage.env('test').tx(async (tx) => {
      await storeWithIntegration(tx);
      throw new Error('refused by the work');
    }, threw)).rejects.toThrow('refused by the work');
    expect(threw.stored).toBeUndefined();
    expect(await claims.claim('test', 'int_1', 'k-threw-answer', 'fp', T0 + 1)).toEqual({ kind: 'in_progress' });
  });

  it('answers a claim the route takes after a handler that ran no unit of work, as `claim` would', async () => {
    const claims = h.storage.coordination.idempotency;
    const claim = workClaim(claims, 'int_1', 'k-late', 'fp');
    expect(await claim.result()).toEqual({ kind: 'fresh' });
    expect(await claims.claim('test', 'int_1', 'k-late', 'fp', T0)).toEqual({ kind: 'in_progress' });
  });
});

/** The round trips `work` made, counted in a scope of its own (what timers started outside it send is not counted). */
async function tripsOf(name: string, work: () => Promise<unknown>): Promise<number> {
  roundTrips.countRequests();
  const before = roundTrips.snapshot().requests[name]?.trips ?? 0;
  await roundTrips.inRequest(async () => {
    roundTrips.name(name);
    try {
      await work();
    } finally {
      roundTrips.answered();
    }
  });
  return roundTrips.snapshot().requests[name]!.trips - before;
}

describePostgres('an idempotency key claimed by a unit of work, on a server database', (h) => {
  it('claims on the next connection when the pooled one\'s session was ended while idle (the database came back)', async () => {
    const claims = h.storage.coordination.idempotency;
    const env = h.storage.env('test');
    // Connections in the pool, then their sessions ended by the server (as after a restart).
    await Promise.all(Array.from({ length: 4 }, () => env.stores.byId('str_none')));
    const admin = new pg.Client({ connectionString: h.database!.url });
    await admin.connect();
    try {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'");
    } finally {
      await admin.end();
    }
    const claim = claims.withWork!('test', 'int_1', 'k-stale', 'fp', T0);
    const { outcome, storeId } = await writeSome(h.storage, claim);
    expect(outcome).toBe('done');
    expect(claim.taken).toEqual({ kind: 'fresh' });
    expect(await env.orders.lastNumber(storeId!)).toBe(1);
  });

  it('sends the claim in the unit of work\'s first round trip, and a key another process holds stops the work there', async () => {
    const claims = h.storage.coordination.idempotency;
    expect(claims.withWork).toBeTypeOf('function');
    // A key held first: the lease keeper's renewals start here, outside the counted scopes.
    expect(await claims.claim('test', 'int_1', 'k-first', 'fp', T0)).toEqual({ kind: 'fresh' });
    const env = h.storage.env('test');
    const ids = await storeWithIntegration(env);
    const first = order(ids.storeId, 1);
    await env.orders.insert(first);
    let number = 1;
    const sent: string[] = [];
    const lockThenWrite = (claim?: WorkClaim) =>
      env.tx(async (tx) => {
        await tx.orders.byId(first.id, { lock: true });
        sent.push('write');
        await tx.orders.insert(order(ids.storeId, ++number));
        return 'done';
      }, claim);
    // The claim, BEGIN and the order's lock leave together; then the insert, then the answer with
    // the COMMIT: as many round trips as the same work without a claim.
    const claim = claims.withWork!('test', 'int_1', 'k-trip', 'fp', T0);
    claim.answerOf = () => response;
    const withClaim = await tripsOf('with a claim', () => lockThenWrite(claim));
    const without = await tripsOf('without', () => lockThenWrite());
    expect(withClaim).toBe(without);
    expect(await claims.claim('test', 'int_1', 'k-trip', 'fp', T0 + 1)).toEqual({ kind: 'replay', response });
    expect(await env.orders.lastNumber(ids.storeId)).toBe(3);
    // Another process holds the key: its claim comes back before the lock's answer, and the work's
    // next statement is refused unsent (its error is the work's; the unit of work answers the claim).
    const other = await h.openAnother();
    expect(await other.coordination.idempotency.claim('test', 'int_1', 'k-other', 'fp', T0)).toEqual({ kind: 'fresh' });
    sent.length = 0;
    const refused = await lockThenWrite(claims.withWork!('test', 'int_1', 'k-other', 'fp', T0)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClaimAnswered);
    expect((refused as ClaimAnswered).claim).toEqual({ kind: 'in_progress' });
    expect(sent).toEqual(['write']);
    expect(await env.orders.lastNumber(ids.storeId)).toBe(3);
  });
});

describePostgres('an idempotency key freed while a unit of work was claiming it', (h) => {
  it('runs the stopped work again once the claim takes the key on its next try, and commits it once', async () => {
    const claims = h.storage.coordination.idempotency;
    const other = await h.openAnother();
    // Another process holds the key: the claim's first INSERT, sent with BEGIN, does not take it, and
    // the work is stopped (its next statement refused unsent).
    expect(await other.coordination.idempotency.claim('test', 'int_1', 'k-freed', 'fp', T0)).toEqual({ kind: 'fresh' });
    // The other process gives the key up right before this one reads the key's row (a hook on this
    // storage's pool): the read finds no row, and the claim's next INSERT takes the key.
    const pool = (h.storage as unknown as { pool: pg.Pool }).pool;
    const query = pool.query;
    let freed = 0;
    pool.query = (async (...args: unknown[]) => {
      const text = (args[0] as { text?: string } | null)?.text ?? '';
      if (freed === 0 && text.startsWith('SELECT fingerprint, state, response')) {
        freed++;
        await other.coordination.idempotency.release('test', 'int_1', 'k-freed');
      }
      return (query as (...a: unknown[]) => Promise<unknown>).apply(pool, args);
    }) as typeof pool.query;
    let runs = 0;
    let storeId: string | null = null;
    let outcome: unknown;
    try {
      outcome = await h.storage.env('test').tx(async (tx) => {
        runs++;
        const ids = await storeWithIntegration(tx);
        storeId = ids.storeId;
        await tx.orders.insert(order(ids.storeId, 1));
        return 'done';
      }, claims.withWork!('test', 'int_1', 'k-freed', 'fp', T0)).catch((error: unknown) => error);
    } finally {
      pool.query = query;
    }
    expect(freed).toBe(1);
    expect(outcome).toBe('done');
    // Stopped once, run again with the key held: its writes committed once.
    expect(runs).toBe(2);
    expect(await h.storage.env('test').orders.lastNumber(storeId!)).toBe(1);
    // The key is this process's now: another claim of it is in progress.
    expect(await other.coordination.idempotency.claim('test', 'int_1', 'k-freed', 'fp', T0)).toEqual({ kind: 'in_progress' });
  });
});

describePostgres('an idempotency key claimed on a connection whose session was gone', (h) => {
  it('sends the claim again on the next connection once the failed one has settled, even when it fails after the work', async () => {
    const claims = h.storage.coordination.idempotency;
    const pool = (h.storage as unknown as { pool: pg.Pool }).pool;
    const connect = pool.connect;
    const gone = () => new Error('Connection terminated unexpectedly');
    let checkouts = 0;
    let failClaim: (() => void) | undefined;
    const second: string[] = [];
    let secondClient: pg.PoolClient | undefined;
    // A unit of work's first connection had lost its session (the server restarted while it sat idle):
    // each of its statements fails as on a closed socket, the claim's INSERT last (once a statement
    // goes out on another connection, or after 50 ms). The second connection records what it is sent.
    pool.connect = ((...args: unknown[]) => {
      if (typeof args[0] === 'function') return (connect as (...a: unknown[]) => unknown).apply(pool, args);
      return ((connect as unknown as (this: pg.Pool) => Promise<pg.PoolClient>).call(pool)).then((client) => {
        const own = client as unknown as { query: (...a: unknown[]) => unknown };
        const query = own.query;
        if (++checkouts === 1) {
          own.query = (config: unknown) => {
            const text = typeof config === 'string' ? config : ((config as { text?: string }).text ?? '');
            if (!text.includes('idempotency_keys')) return Promise.reject(gone());
            return new Promise((_, reject) => {
              failClaim = () => reject(gone());
              setTimeout(failClaim, 50);
            });
          };
        } else if (checkouts === 2) {
          secondClient = client;
          own.query = (...a: unknown[]) => {
            const config = a[0];
            second.push(typeof config === 'string' ? config : ((config as { text?: string }).text ?? ''));
            failClaim?.();
            return query.apply(client, a);
          };
        }
        return client;
      });
    }) as typeof pool.connect;
    const claim = claims.withWork!('test', 'int_1', 'k-gone', 'fp', T0);
    let result: Awaited<ReturnType<typeof writeSome>>;
    try {
      result = await writeSome(h.storage, claim);
    } finally {
      pool.connect = connect;
      if (secondClient) delete (secondClient as unknown as { query?: unknown }).query;
    }
    expect(result.outcome).toBe('done');
    expect(claim.taken).toEqual({ kind: 'fresh' });
    // The claim went out again, first, on the second connection (not the failed one handed back).
    expect(second[0]).toContain('idempotency_keys');
    expect(await h.storage.env('test').orders.lastNumber(result.storeId!)).toBe(1);
  });
});
