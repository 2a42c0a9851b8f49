import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPool } from '../../../../emulator/adapters/postgres/connect.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestDatabase } from '../../../helpers/test-database.js';

// issue 25: a pool connection's statements queued in one turn of the event loop leave in one socket
// write (node-postgres writes each as it is queued, and under the mix socket writes were the largest
// share of a process's CPU). Their answers, and their order, are the same.

/** Writes to the server's port while `work` runs, by the sockets of this process. */
async function writesDuring(port: number, work: () => Promise<unknown>): Promise<number> {
  let writes = 0;
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
  const originals = { _write: proto._write, _writev: proto._writev };
  for (const name of ['_write', '_writev'] as const) {
    proto[name] = function (this: net.Socket, ...a: unknown[]) {
      if (this.remotePort === port) writes++;
      return originals[name].apply(this, a);
    };
  }
  try {
    await work();
  } finally {
    proto._write = originals._write;
    proto._writev = originals._writev;
  }
  return writes;
}

describe.skipIf(!PG_URL)('a pool connection\'s socket writes', () => {
  const database = useTestDatabase();

  it('sends the statements queued in one turn in one write, answered each in order', async () => {
    const pool = createPool(database().url, { poolSize: 1 });
    try {
      const port = Number(new URL(database().url).port || 5432);
      const client = await pool.connect();
      try {
        await client.query('SELECT 1'); // connected and warm
        let answers: unknown[] = [];
        const writes = await writesDuring(port, async () => {
          answers = await Promise.all([
            client.query('BEGIN'),
            client.query({ name: 'sw_1', text: 'SELECT $1::int AS n', values: [1] }),
            client.query({ name: 'sw_2', text: 'SELECT $1::int + 1 AS n', values: [1] }),
            client.query('COMMIT'),
          ]);
        });
        expect(writes).toBe(1);
        expect(answers.map((r) => (r as { rows: { n?: number }[] }).rows[0]?.n ?? null)).toEqual([null, 1, 2, null]);
        // A statement queued after an answer (a later turn) goes in a write of its own.
        const later = await writesDuring(port, async () => {
          await client.query('SELECT 1');
          await client.query('SELECT 2');
        });
        expect(later).toBe(2);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
