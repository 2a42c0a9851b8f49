import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPool } from '../../../../emulator/adapters/postgres/connect.js';
import { roundTrips, routeOf, RoundTrips } from '../../../../emulator/adapters/postgres/round-trips.js';
import { createTestDatabase, PG_URL } from '../../../helpers/postgres.js';

// issue 25: the round trips to the database are counted by the adapter, per request kind, not guessed.

describe('a request\'s route for the counts', () => {
  it('writes ids and numbers as :id and leaves out the query', () => {
    expect(routeOf('GET', '/sandbox/v1/orders/ord_01HX9Z?expand=1')).toBe('GET /sandbox/v1/orders/:id');
    expect(routeOf('POST', '/sandbox/v1/orders/ord_01HX9Z/status')).toBe('POST /sandbox/v1/orders/:id/status');
    expect(routeOf('GET', '/sandbox/v1/catalog/products')).toBe('GET /sandbox/v1/catalog/products');
    expect(routeOf('GET', '/_emulator/webhook/deliveries/12')).toBe('GET /_emulator/webhook/deliveries/:id');
  });
});

describe('the count of statements sent per request', () => {
  it('names a request by its route and closes it at its answer; what comes after is background', () => {
    const counts = new RoundTrips();
    counts.countRequests();
    counts.inRequest(() => {
      counts.name('GET /x');
      counts.sent(() => 'SELECT 1', true);
      counts.sent(() => 'SELECT 2', false);
      counts.answered();
      counts.sent(() => 'SELECT 3', true);
    });
    counts.sent(() => 'SELECT 4', true);
    const snap = counts.snapshot();
    expect(snap.total).toEqual({ trips: 3, statements: 4 });
    expect(snap.requests).toEqual({ 'GET /x': { requests: 1, trips: 1, statements: 2 } });
    expect(snap.background).toEqual({ 'SELECT 3': { trips: 1, statements: 1 }, 'SELECT 4': { trips: 1, statements: 1 } });
  });
});

describe('the count per HTTP request', () => {
  it('counts HTTP requests even when scopes were opened before without them (tests share a process)', async () => {
    const counts = new RoundTrips();
    counts.countRequests();
    counts.countHttpRequests();
    const server = createServer((_request, response) => {
      counts.sent(() => 'SELECT 1', true);
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      expect(await (await fetch(`http://127.0.0.1:${port}/orders/ord_1`)).text()).toBe('ok');
      while (!counts.snapshot().requests['GET /orders/:id']) await new Promise((resolve) => setImmediate(resolve));
      const snap = counts.snapshot();
      expect(snap.requests['GET /orders/:id']).toEqual({ requests: 1, trips: 1, statements: 1 });
      // A snapshot keeps its counts: it is a copy.
      counts.sent(() => 'SELECT 2', true);
      expect(snap.background).toEqual({});
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe.skipIf(!PG_URL)('the pool\'s counter on a real server', () => {
  it('counts each query once, under the request that sent it, even when it waited for a connection another request released', async () => {
    roundTrips.countRequests();
    const database = await createTestDatabase();
    const pool = createPool(database.url, { poolSize: 1 });
    try {
      const before = roundTrips.snapshot();
      // One connection, three requests at once: the second and third get it when the one before releases it.
      await Promise.all(
        ['GET /a', 'GET /b', 'GET /c'].map((route, i) =>
          roundTrips.inRequest(async () => {
            roundTrips.name(route);
            await pool.query(`SELECT ${i} AS n, pg_sleep(0.02)`);
            await pool.query(`SELECT ${i} AS m`);
            roundTrips.answered();
          }),
        ),
      );
      const after = roundTrips.snapshot();
      expect(after.total.trips - before.total.trips).toBe(6);
      for (const route of ['GET /a', 'GET /b', 'GET /c']) {
        expect(after.requests[route]).toEqual({ requests: 1, trips: 2, statements: 2 });
      }
    } finally {
      await pool.end();
      await database.drop();
    }
  });
});
