import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { clientConfig, createPool } from '../../../../emulator/adapters/postgres/connect.js';
import { isDriverUnavailable, StorageUnavailableError } from '../../../../emulator/adapters/postgres/errors.js';
import { Pool } from '../../../../emulator/adapters/postgres/pool.js';
import { admin, PG_URL } from '../../../helpers/postgres.js';
import { useTestDatabase } from '../../../helpers/test-database.js';
import { waitFor } from '../../../helpers/wait.js';

// issue 25: the adapter's own pool (pool.ts), idle connections in an array instead of pg-pool's
// events and timers per checkout. What pg-pool did, it still does; its line of waiters is bounded.

/** A pool of `max` plain connections on `url` with short limits, for the rules below. */
const poolOn = (url: string, options: Partial<ConstructorParameters<typeof Pool>[0]> = {}) =>
  new Pool({ ...clientConfig(url), Client: pg.Client, max: 1, idleTimeoutMillis: 30_000, maxWaiting: 10, ...options });

const pidOf = async (client: { query(text: string): Promise<pg.QueryResult> }) => (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;

describe.skipIf(!PG_URL)('the adapter\'s pool of connections', () => {
  const database = useTestDatabase();

  it('hands a busy pool\'s connection to its waiters in the order they came, and fails one past the line\'s bound as unavailable', async () => {
    const pool = poolOn(database().url, { maxWaiting: 2 });
    try {
      const held = await pool.connect();
      const order: string[] = [];
      const first = pool.connect().then((c) => (order.push('first'), c));
      const second = pool.connect().then((c) => (order.push('second'), c));
      const refused = await pool.connect().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StorageUnavailableError);
      expect(isDriverUnavailable(refused)).toBe(true);
      expect(pool.waitingCount).toBe(2);
      const pid = await pidOf(held);
      held.release();
      const next = await first;
      expect(await pidOf(next)).toBe(pid);
      next.release();
      (await second).release();
      expect(order).toEqual(['first', 'second']);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('fails a checkout that waited past its limit as unavailable, and serves the next one', async () => {
    const pool = poolOn(database().url, { waitTimeoutMillis: 50 });
    try {
      const held = await pool.connect();
      const late = await pool.connect().catch((e: Error) => e);
      expect((late as Error).message).toBe('timeout exceeded when trying to connect');
      expect(isDriverUnavailable(late)).toBe(true);
      expect(pool.waitingCount).toBe(0);
      held.release();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('replaces a connection that broke while idle, told as the pool\'s error instead of ending the process', async () => {
    const pool = poolOn(database().url);
    const errors: unknown[] = [];
    pool.on('error', (e) => errors.push(e));
    try {
      const pid = await pidOf(pool);
      await admin((c) => c.query('SELECT pg_terminate_backend($1, 10000)', [pid]));
      await waitFor(() => pool.totalCount === 0, () => `the ended connection still in the pool (${pool.totalCount})`);
      expect(errors).toHaveLength(1);
      const again = await pidOf(pool);
      expect(again).not.toBe(pid);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('closes a connection released with an error and opens a new one for the next checkout', async () => {
    const pool = poolOn(database().url);
    try {
      const client = await pool.connect();
      const pid = await pidOf(client);
      client.release(new Error('broken by its work'));
      expect(pool.totalCount).toBe(0);
      expect(await pidOf(pool)).not.toBe(pid);
      const again = await pool.connect();
      again.release();
      expect(() => again.release()).toThrow(/already been released/);
    } finally {
      await pool.end();
    }
  });

  it('closes a connection idle longer than the idle timeout, and reopens on demand', async () => {
    const pool = poolOn(database().url, { max: 2, idleTimeoutMillis: 30 });
    try {
      await Promise.all([pidOf(pool), pidOf(pool)]);
      await waitFor(() => pool.totalCount === 0, () => `${pool.totalCount} idle connections still open`);
      expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it('ends once the busy connections are released, and refuses checkouts from then on', async () => {
    const pool = poolOn(database().url);
    const client = await pool.connect();
    let ended = false;
    const ending = pool.end().then(() => (ended = true));
    await expect(pool.connect()).rejects.toThrow(/after calling end/);
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    client.release();
    await ending;
    expect(pool.totalCount).toBe(0);
  });

  it('answers the adapter\'s statements on a pool of its own size, many more in flight than connections', async () => {
    const pool = createPool(database().url, { poolSize: 3 });
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.query({ name: 'pool_n', text: 'SELECT $1::int AS n', values: [i] })));
      expect(answers.map((a) => a.rows[0]!.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(pool.totalCount).toBeLessThanOrEqual(3);
    } finally {
      await pool.end();
    }
  });
});
