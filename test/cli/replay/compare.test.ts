import { describe, expect, it } from 'vitest';
import { compareBodies, IdMap, redactDifference } from '../../../src/cli/commands/replay/compare.js';

const ORD_A = 'ord_01JD0000000000000000000000';
const ORD_B = 'ord_01JE1111111111111111111111';
const ORD_C = 'ord_01JF2222222222222222222222';

describe('compareBodies', () => {
  it('ignores request ids, times and redacted values', () => {
    const ids = new IdMap();
    const recorded = { error: { request_id: 'req_01JD0000000000000000000000', at: '2026-11-24T10:00:00.000-03:00', code: '[redacted]' } };
    const actual = { error: { request_id: 'req_01JE1111111111111111111111', at: '2026-11-25T11:00:00-03:00', code: '4821' } };
    expect(compareBodies(recorded, actual, ids)).toEqual([]);
  });

  it('maps an id the first time it differs and holds the target to it afterwards', () => {
    const ids = new IdMap();
    expect(compareBodies({ id: ORD_A }, { id: ORD_B }, ids)).toEqual([]);
    expect(ids.apply(`/orders/${ORD_A}/ack`)).toBe(`/orders/${ORD_B}/ack`);
    expect(compareBodies({ id: ORD_A }, { id: ORD_C }, ids)).toEqual([{ path: 'id', recorded: ORD_A, actual: ORD_C }]);
  });

  it('never maps ids of different kinds onto each other', () => {
    expect(compareBodies({ id: ORD_A }, { id: 'prd_01JE1111111111111111111111' }, new IdMap())).toHaveLength(1);
  });

  it('maps credential key ids like resource ids', () => {
    const ids = new IdMap();
    const a = { key_id: 'svk_test_AAAAAAAAAAAAAAAAAAAAAAAA' };
    const b = { key_id: 'svk_test_BBBBBBBBBBBBBBBBBBBBBBBB' };
    expect(compareBodies(a, b, ids)).toEqual([]);
  });

  it.each([
    ['a changed value', { status: 'pending' }, { status: 'accepted' }, ['status']],
    ['a missing field', { a: 1, b: 2 }, { a: 1 }, ['b']],
    ['an extra field', { a: 1 }, { a: 1, b: 2 }, ['b']],
    ['a shorter list', { items: [1, 2] }, { items: [1] }, ['items.length']],
    ['a type change', { total: '100' }, { total: 100 }, ['total']],
    ['the same body', { items: [{ name: 'Chipa' }] }, { items: [{ name: 'Chipa' }] }, []],
  ])('reports %s', (_name, recorded, actual, paths) => {
    expect(compareBodies(recorded, actual, new IdMap()).map((d) => d.path)).toEqual(paths);
  });

  // 100,000 levels: deep enough that a recursive walk overflows the stack.
  it('compares bodies nested 100,000 levels deep', () => {
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 100_000; i++) {
      a = [a];
      b = [b];
    }
    expect(compareBodies(a, b, new IdMap())).toHaveLength(1);
  });
});

describe('redactDifference', () => {
  it.each([
    ['data', undefined, { signing_secret: 'whsec_abc', url: 'http://x' }, undefined, { signing_secret: '[redacted]', url: 'http://x' }],
    ['data.signing_secret', undefined, 'whsec_abc', undefined, '[redacted]'],
    ['data.secret', undefined, 'whsec_abc', undefined, 'whsec_[redacted]'],
    ['data.delivery_code', '[redacted]', '4821', '[redacted]', '[redacted]'],
    ['data.tracking_url', null, 'https://t.example/abc', null, '[redacted]'],
    ['error.message', 'svs_test_abc', 'plain', 'svs_test_[redacted]', 'plain'],
  ])('masks %s on both sides', (path, recorded, actual, wantRecorded, wantActual) => {
    expect(redactDifference({ path, recorded, actual })).toEqual({ path, recorded: wantRecorded, actual: wantActual });
  });
});
