import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchLib, withBenchClient } from '../helpers/bench-client.js';

// bench/mixed.mjs reads its list pages from their bytes as they come (bench/lib/list-page.mjs) and its answers
// through its own client (exchange in bench/lib/mixed-workload.mjs, bench/lib/http1.mjs): what they give must be what
// decoding and JSON.parse gave, or the bench's feed figures and pipeline would change meaning.

const event = (n: number, extra: object = {}) => ({
  id: `evt_${n}`,
  type: 'order.created',
  data: { order: { id: `ord_${n}`, items: [{ name: 'Pizza "grande" \\ {con} [extras]', options: [] }], note: 'ñandú, "next_cursor":"x"' }, ...extra },
});

const pages = {
  'a feed page': { data: [event(1), event(2), event(3)], next_cursor: 'ZTE6MTg3MDox', has_more: true, cursor_expired: false },
  'a last page (null cursor)': { data: [event(4)], next_cursor: null, has_more: false, cursor_expired: false },
  'an empty page': { data: [], next_cursor: null, has_more: false, cursor_expired: false },
  'a payload holding next_cursor and data keys': { data: [event(5, { next_cursor: 'inner', data: [{}, {}] })], next_cursor: 'b3V0ZXI=' },
  'keys in another order': { has_more: true, next_cursor: 'Zmlyc3Q=', data: [{ a: [{}, { b: {} }] }, {}] },
};

describe('bench/lib/list-page.mjs', () => {
  for (const [name, page] of Object.entries(pages)) {
    it(`reads ${name} as JSON.parse does: data.length and next_cursor, however the bytes are cut`, async () => {
      const { ListPageReader, readChunks } = await benchLib('list-page.mjs');
      for (const text of [JSON.stringify(page), JSON.stringify(page, null, 2)]) {
        const parsed = JSON.parse(text);
        const expected = { items: parsed.data.length, nextCursor: parsed.next_cursor ?? null };
        const bytes = Buffer.from(text);
        expect(readChunks(ListPageReader, [bytes])).toEqual(expected);
        // Cut in two at every byte (inside strings, escapes, keys and the cursor), and byte by byte.
        for (let at = 0; at <= bytes.length; at++) expect(readChunks(ListPageReader, [bytes.subarray(0, at), bytes.subarray(at)])).toEqual(expected);
        expect(readChunks(ListPageReader, [...bytes].map((b) => Buffer.from([b])))).toEqual(expected);
      }
    });
  }

  it('finds the catalog page\'s next_cursor from its end however the bytes are cut, and null on the last page', async () => {
    const { CursorAtEnd, readChunks } = await benchLib('list-page.mjs');
    const products = Array.from({ length: 50 }, (_, i) => ({ id: `prd_${i}`, name: `Producto ${i}`, description: 'Descripción "con" comillas' }));
    for (const cursor of ['cHJkXzQ5', null]) {
      const bytes = Buffer.from(JSON.stringify({ data: products, next_cursor: cursor }));
      expect(readChunks(CursorAtEnd, [bytes])).toEqual({ nextCursor: cursor });
      for (let at = bytes.length - 40; at <= bytes.length; at++) {
        expect(readChunks(CursorAtEnd, [bytes.subarray(0, 100), bytes.subarray(100, at), bytes.subarray(at)])).toEqual({ nextCursor: cursor });
      }
    }
  });

  it('refuses a page cut short', async () => {
    const { ListPageReader, readChunks } = await benchLib('list-page.mjs');
    const text = JSON.stringify(pages['a feed page']);
    expect(() => readChunks(ListPageReader, [Buffer.from(text.slice(0, text.length / 2))])).toThrow();
  });
});

describe('the mixed bench\'s exchange', () => {
  let server: Server;
  let url: string;
  const body = JSON.stringify({ data: [event(1)], next_cursor: 'abc' });
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/conflict') return res.writeHead(409, { 'content-type': 'application/json' }).end('{"error":{"code":"invalid_status_transition","message":"x"}}');
        if (req.url === '/html') return res.writeHead(502).end('<html>bad gateway</html>');
        if (req.url === '/cut') return res.writeHead(200).end(body.slice(0, 20));
        // Chunked, in several writes: the body comes in pieces.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(body.slice(0, 10));
        res.write(body.slice(10, 30));
        res.end(body.slice(30));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('gives the body as text, as a reader\'s page or not at all, read to its end', () =>
    withBenchClient(url, async ({ origin: pool, exchange, ListPageReader }) => {
      expect(await exchange(pool, 'GET', '/page', {})).toEqual({ status: 200, ok: true, text: body });
      expect(await exchange(pool, 'GET', '/page', {}, undefined, { read: ListPageReader })).toEqual({ status: 200, ok: true, page: { items: 1, nextCursor: 'abc' } });
      // A page the reader cannot read is the answer's page (an error the bench reports), not a network failure.
      const cut = await exchange(pool, 'GET', '/cut', {}, undefined, { read: ListPageReader });
      expect([cut.status, cut.page instanceof Error]).toEqual([200, true]);
      expect(await exchange(pool, 'POST', '/page', { 'idempotency-key': 'k' }, { a: 1 }, { read: 'none' })).toEqual({ status: 200, ok: true });
    }));

  it('gives an error\'s code from its JSON body, not_json otherwise (a network failure\'s status 0: http1.test.ts)', () =>
    withBenchClient(url, async ({ origin: pool, exchange, ListPageReader }) => {
      expect(await exchange(pool, 'POST', '/conflict', {}, {}, { read: 'none' })).toEqual({ status: 409, ok: false, code: 'invalid_status_transition' });
      expect(await exchange(pool, 'GET', '/html', {}, undefined, { read: ListPageReader })).toEqual({ status: 502, ok: false, code: 'not_json' });
    }));
});
