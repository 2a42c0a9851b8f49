import { describe, expect, it } from 'vitest';
import { FEED_ROW, feedRowsOf } from '../../../../emulator/adapters/postgres/admission.js';
import { PG_URL } from '../../../helpers/postgres.js';
import { useTestClient } from '../../../helpers/test-database.js';

// issue 25, eighth step: a feed page's events come from the admission as one text, each event's data
// as stored (its length first) and its other columns as a JSON array. Whatever a stored data holds
// (a restored bundle's may hold anything), every event comes back whole, byte for byte.

const DATA = [
  JSON.stringify({ order: { id: 'ord_1', notas: 'it\'s \\ "quoted" \u2028 🍕 $1 ; 12:30' } }),
  '', // an empty text
  'raw\nnewline\n2:[1]\n', // what the separators look like, unescaped
  '🍕'.repeat(3) + ':\u0001ñ', // characters beyond the BMP, a control character
  '🍕'.repeat(10) + 'ñ🍕', // more of them than the data has other characters: its end is found again and again
  '{"a":"' + 'x'.repeat(70_000) + '"}',
];

describe.skipIf(!PG_URL)('a feed page\'s text', () => {
  const db = useTestClient();

  it('gives back every event whole, whatever its data holds, in position order', async () => {
    const ids = DATA.map((_, i) => `evt_${i}_"q"\n🍕`);
    const { rows } = await db.client().query<{ page: string | null }>(
      `SELECT string_agg(${FEED_ROW}, '' ORDER BY p.seq) AS page
       FROM unnest($1::bigint[], $2::text[], $3::text[]) WITH ORDINALITY AS u(seq, id, data, n),
         LATERAL (SELECT u.seq, u.id, 'order.created'::text AS type, 'sto_1'::text AS "storeId", 'int_1'::text AS "integrationId",
           1768478400000 + u.n AS "createdAt", u.data) p`,
      [DATA.map((_, i) => 9_007_199_254_740_000 - i), ids, DATA],
    );
    const page = feedRowsOf(rows[0]!.page);
    const expected = DATA.map((data, i) => ({
      seq: 9_007_199_254_740_000 - i, id: ids[i], type: 'order.created', storeId: 'sto_1', integrationId: 'int_1',
      createdAt: 1768478400000 + i + 1, data: Buffer.from(data, 'utf8'),
    })).reverse();
    expect(page).toEqual(expected);
  });

  it('is no event at all for an empty page', async () => {
    const { rows } = await db.client().query<{ page: string | null }>(
      `SELECT string_agg(${FEED_ROW}, '' ORDER BY p.seq) AS page FROM (SELECT 1::bigint AS seq, ''::text AS id, ''::text AS type,
         ''::text AS "storeId", ''::text AS "integrationId", 0::bigint AS "createdAt", ''::text AS data WHERE false) p`,
    );
    expect(rows[0]!.page).toBeNull();
    expect(feedRowsOf(null)).toEqual([]);
  });
});
