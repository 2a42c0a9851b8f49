import { describe, expect, it } from 'vitest';
import { createPool, type PoolClient } from '../../../../emulator/adapters/postgres/connect.js';
import { driverFits, rowMaker } from '../../../../emulator/adapters/postgres/described.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestDatabase } from '../../../helpers/test-database.js';

// issue 25: a named statement's columns are described once per connection (described.ts): the later
// executions skip the server's row description and parse their rows as the first one did.

/** Row descriptions this connection receives while `work` runs. */
async function descriptionsDuring(client: PoolClient, work: () => Promise<unknown>): Promise<number> {
  const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
  let count = 0;
  const count1 = () => count++;
  connection.on('rowDescription', count1);
  try {
    await work();
  } finally {
    connection.off('rowDescription', count1);
  }
  return count;
}

/** A one-connection pool on `url` and its client for `work`; both closed after it. */
async function withClient(url: string, work: (client: PoolClient) => Promise<void>): Promise<void> {
  const pool = createPool(url, { poolSize: 1 });
  try {
    const client = await pool.connect();
    try {
      await work(client);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

// The internals of node-postgres described.ts relies on (package.json pins its minor): a version
// without them would run every statement described each time, correct but slower; this says so.
it('finds the node-postgres internals it relies on in the installed driver', () => {
  expect(driverFits()).toBe(true);
});

describe('rowMaker (the later executions\' rows, built as one literal)', () => {
  const parsers = [Number, (v: string) => `<${v}>`, Number];

  it('makes the row node-postgres makes: its keys in column order, null for NULL, each value through its parser', () => {
    const make = rowMaker([{ name: 'n', format: 'text' }, { name: 'quote"d \\ name', format: 'text' }, { name: 'big' }], parsers)!;
    const row = make.call(null, ['12', 'x', null]);
    expect(row).toEqual({ n: 12, 'quote"d \\ name': '<x>', big: null });
    expect(Object.keys(row)).toEqual(['n', 'quote"d \\ name', 'big']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it('keeps the last of two columns of one name at the first one\'s place, as node-postgres does', () => {
    const row = rowMaker([{ name: 'a' }, { name: 'b' }, { name: 'a' }], parsers)!.call(null, ['1', 'x', '3']);
    expect(row).toEqual({ a: 3, b: '<x>' });
    expect(Object.keys(row)).toEqual(['a', 'b']);
  });

  it('leaves a binary column or a column named __proto__ to the driver', () => {
    expect(rowMaker([{ name: 'a', format: 'binary' }], parsers)).toBeNull();
    expect(rowMaker([{ name: '__proto__' }], parsers)).toBeNull();
  });
});

describe.skipIf(!PG_URL)('a named statement described once per connection', () => {
  const database = useTestDatabase();

  it('answers each execution with its own rows, typed as the first, after one row description', async () => {
    await withClient(database().url, async (client) => {
      const statement = { name: 'described_1', text: 'SELECT $1::int AS n, $2::text AS t, $3::bigint AS big, NULL::text AS missing, $4::boolean AS b' };
      const seen: unknown[] = [];
      const descriptions = await descriptionsDuring(client, async () => {
        for (const values of [[1, 'a', 2 ** 40, true], [2, 'é ü', 7, false], [3, null, null, null]] as unknown[][]) {
          seen.push((await client.query({ ...statement, values })).rows);
        }
      });
      expect(seen).toEqual([
        [{ n: 1, t: 'a', big: 2 ** 40, missing: null, b: true }],
        [{ n: 2, t: 'é ü', big: 7, missing: null, b: false }],
        [{ n: 3, t: null, big: null, missing: null, b: null }],
      ]);
      expect(descriptions).toBe(1);
      // Pipelined executions (queued in one turn) answer in order, each its own.
      const many = await Promise.all([1, 2, 3].map((n) => client.query({ ...statement, values: [n, `${n}`, n, n % 2 === 0] })));
      expect(many.map((r) => r.rows[0])).toEqual([1, 2, 3].map((n) => ({ n, t: `${n}`, big: n, missing: null, b: n % 2 === 0 })));
    });
  });

  it('keeps the columns of a statement whose first execution found no row, and of one that returns none', async () => {
    await withClient(database().url, async (client) => {
      await client.query('CREATE TEMP TABLE described_t (id int PRIMARY KEY, label text)');
      const insert = { name: 'described_insert', text: 'INSERT INTO described_t VALUES ($1, $2)' };
      const select = { name: 'described_select', text: 'SELECT id, label FROM described_t WHERE id >= $1 ORDER BY id' };
      expect((await client.query({ ...select, values: [1] })).rows).toEqual([]);
      expect((await client.query({ ...insert, values: [1, 'one'] })).rowCount).toBe(1);
      expect((await client.query({ ...insert, values: [2, 'two'] })).rowCount).toBe(1);
      const rows = await descriptionsDuring(client, async () => {
        expect((await client.query({ ...select, values: [1] })).rows).toEqual([{ id: 1, label: 'one' }, { id: 2, label: 'two' }]);
        expect((await client.query({ ...insert, values: [3, 'three'] })).rowCount).toBe(1);
      });
      expect(rows).toBe(0);
    });
  });

  it('makes the later rows of a statement with one maker for every connection of the pool', async () => {
    const pool = createPool(database().url, { poolSize: 2 });
    try {
      const [one, two] = await Promise.all([pool.connect(), pool.connect()]);
      const statement = { name: 'described_shared', text: 'SELECT $1::int AS n, $2::bigint AS big', values: [1, 2] };
      const makers = [];
      for (const client of [one!, two!]) {
        await client.query(statement);
        const later = (await client.query(statement)) as unknown as { rows: unknown[]; parseRow: unknown };
        expect(later.rows).toEqual([{ n: 1, big: 2 }]);
        makers.push(Object.hasOwn(later, 'parseRow') ? later.parseRow : undefined);
      }
      expect(makers[0]).toBeTypeOf('function');
      expect(makers[1]).toBe(makers[0]);
      one!.release();
      two!.release();
    } finally {
      await pool.end();
    }
  });

  it('describes again after a first execution that failed, then answers as before', async () => {
    await withClient(database().url, async (client) => {
      const statement = { name: 'described_div', text: 'SELECT 10 / $1::int AS q' };
      await expect(client.query({ ...statement, values: [0] })).rejects.toThrow(/division by zero/);
      const descriptions = await descriptionsDuring(client, async () => {
        expect((await client.query({ ...statement, values: [2] })).rows).toEqual([{ q: 5 }]);
        expect((await client.query({ ...statement, values: [5] })).rows).toEqual([{ q: 2 }]);
        await expect(client.query({ ...statement, values: [0] })).rejects.toThrow(/division by zero/);
        expect((await client.query({ ...statement, values: [10] })).rows).toEqual([{ q: 1 }]);
      });
      expect(descriptions).toBe(1);
    });
  });

  it('describes anew on a new connection (the session that prepared it ended)', async () => {
    const pool = createPool(database().url, { poolSize: 1 });
    try {
      const statement = { name: 'described_pid', text: 'SELECT pg_backend_pid() AS pid, $1::text AS v' };
      const first = await pool.query({ ...statement, values: ['a'] });
      const pid = (first.rows[0] as { pid: number }).pid;
      const other = createPool(database().url, { poolSize: 1 });
      try {
        await other.query({ text: 'SELECT pg_terminate_backend($1)', values: [pid] });
      } finally {
        await other.end();
      }
      // The pool's idle connection is gone: the statement runs on a new one, prepared and described there.
      const again = await pool.query({ ...statement, values: ['b'] });
      expect(again.rows[0]).toMatchObject({ v: 'b' });
      expect((again.rows[0] as { pid: number }).pid).not.toBe(pid);
    } finally {
      await pool.end();
    }
  });
});
