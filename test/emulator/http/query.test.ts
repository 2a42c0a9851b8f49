import { describe, expect, it } from 'vitest';
import { listProducts } from '../../../src/contract/endpoints.js';
import { listEvents } from '../../../src/contract/orders-endpoints.js';
import { ApiError } from '../../../src/contract/errors.js';
import { parseQuery, prefetchQuery } from '../../../emulator/http/query.js';

// issue 25: a route's query is parsed once per request, by its prefetch when it has one (the read a
// server database makes with the admission), and the route takes that parse as is.

describe('a route\'s query parsed once', () => {
  it('hands the route the very parse its prefetch made for the same request', () => {
    const query = { limit: '50', active: 'true' };
    const prefetched = prefetchQuery(listProducts.query!, query);
    expect(prefetched).toMatchObject({ limit: 50, active: true });
    expect(parseQuery(listProducts.query!, query)).toBe(prefetched);
    // Another request's query (another object, equal text) is parsed anew.
    expect(parseQuery(listProducts.query!, { ...query })).not.toBe(prefetched);
    expect(parseQuery(listProducts.query!, { ...query })).toEqual(prefetched);
  });

  it('parses again for another schema given the same query object', () => {
    const query = { limit: '10' };
    const products = prefetchQuery(listProducts.query!, query);
    const feed = parseQuery(listEvents.query!, query);
    expect(feed).not.toBe(products);
    expect(feed).toMatchObject({ limit: 10 });
  });

  it('gives the prefetch nothing for a query that is not valid, and the route its 422 with details per field', () => {
    const query = { limit: 'many' };
    expect(prefetchQuery(listProducts.query!, query)).toBeUndefined();
    let error: unknown;
    try {
      parseQuery(listProducts.query!, query);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('validation_failed');
    expect(JSON.stringify((error as ApiError).toBody('req_1'))).toContain('"field":"limit"');
  });
});
