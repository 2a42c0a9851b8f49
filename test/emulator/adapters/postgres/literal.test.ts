import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { escapeLiteral } from '../../../../emulator/adapters/postgres/conn.js';
import { createPool } from '../../../../emulator/adapters/postgres/connect.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestDatabase } from '../../../helpers/test-database.js';

// issue 25: the COMMIT's text carries events and deliveries as literals; escapeLiteral writes them as
// node-postgres's does, and the server reads each back byte for byte.

const TEXTS = [
  '', 'plain', "it's", "''", '\\', 'a\\b', "o'\\'x", '{"order":{"note":"l\'été \\"chaud\\" \\\\n"}}', 'ñandú ☃ 😀', '\u0001\t\n\r', "'".repeat(50), 'x'.repeat(100_000) + "'\\",
];

describe('escapeLiteral', () => {
  it('writes every text as node-postgres writes it', () => {
    for (const text of TEXTS) expect(escapeLiteral(text)).toBe(pg.escapeLiteral(text));
    expect(escapeLiteral(undefined as unknown as string)).toBe(pg.escapeLiteral(undefined as unknown as string));
  });
});

describe.skipIf(!PG_URL)('escapeLiteral on the server', () => {
  const database = useTestDatabase();

  it('reads each text back as it was, with standard_conforming_strings on and off', async () => {
    const pool = createPool(database().url, { poolSize: 1 });
    try {
      for (const setting of ['on', 'off']) {
        await pool.query(`SET standard_conforming_strings = ${setting}`);
        const { rows } = await pool.query(`SELECT ${TEXTS.map((t, i) => `${escapeLiteral(t)} AS t${i}`).join(', ')}`);
        expect(TEXTS.map((_, i) => (rows[0] as Record<string, string>)[`t${i}`])).toEqual(TEXTS);
      }
    } finally {
      await pool.end();
    }
  });
});
