import { describe, expect, it } from 'vitest';
import { otherStoreWarning, recordedStore } from '../../../src/cli/commands/replay/store.js';
import type { Exchange } from '../../../src/cli/commands/proxy/record.js';

const STORE_A = 'str_01JD0000000000000000000000';
const STORE_B = 'str_01JE1111111111111111111111';

const exchange = (path: string, body: unknown): Exchange => ({
  format: 'merchant-kit.exchange', version: 1, seq: 1, at: '', duration_ms: 1, violations: [],
  request: { method: 'GET', path, headers: {}, body: null },
  response: { status: 200, headers: {}, body },
});

describe('recordedStore: the store a session was recorded in, from its answers', () => {
  it.each([
    ['GET /me: data.store.id', exchange('/sandbox/v1/me', { data: { store: { id: STORE_A }, integration: { id: 'int_1' } } })],
    ['GET /store: data.id', exchange('/sandbox/v1/store', { data: { id: STORE_A, name: 'Tienda' } })],
    ['an order list: its first store_id', exchange('/sandbox/v1/orders?limit=5', { data: [{ id: 'ord_1', store_id: STORE_A }] })],
    ['one event: its store_id', exchange('/sandbox/v1/events', { data: { id: 'evt_1', store_id: STORE_A } })],
  ])('%s', (_name, named) => {
    expect(recordedStore([exchange('/sandbox/v1/catalog/categories', { data: [] }), named])).toBe(STORE_A);
  });

  it('null when no answer names a store (an error, a catalog read)', () => {
    expect(recordedStore([exchange('/sandbox/v1/me', { error: { code: 'unauthenticated' } }), exchange('/sandbox/v1/catalog/products', { data: [{ id: 'prd_1' }] })])).toBeNull();
  });
});

describe('otherStoreWarning', () => {
  const state = {
    environments: [{
      name: 'test' as const,
      stores: [
        { id: STORE_A, integrations: [{ credentials: [{ key_id: 'svk_test_AAAA' }] }] },
        { id: STORE_B, integrations: [{ credentials: [{ key_id: 'svk_test_BBBB' }] }] },
      ],
    }],
  };

  it("warns when the target holds the recording's store and the credential is another store's", () => {
    expect(otherStoreWarning('s.jsonl', STORE_A, 'svk_test_BBBB.svs_test_x', state)).toMatch(
      new RegExp(`^warning: s\\.jsonl was recorded in store ${STORE_A}, but the credential is of store ${STORE_B}: .+ Replay with the credential of ${STORE_A} `),
    );
  });

  it("says nothing for the recording's own store, a store the target does not hold, or an unknown credential", () => {
    expect(otherStoreWarning('s.jsonl', STORE_A, 'svk_test_AAAA.svs_test_x', state)).toBeNull();
    expect(otherStoreWarning('s.jsonl', 'str_01JF2222222222222222222222', 'svk_test_BBBB.svs_test_x', state)).toBeNull();
    expect(otherStoreWarning('s.jsonl', STORE_A, 'svk_test_ZZZZ.svs_test_x', state)).toBeNull();
  });
});
