import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, IdFactory, idPattern, isId, ulid, type IdKind } from '../../src/contract/ids.js';
import { seededRandom } from '../../src/contract/random.js';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ulid', () => {
  it.each([
    [0, '0000000000'],
    [1, '0000000001'],
    [32, '0000000010'],
    [Date.UTC(2026, 10, 22), undefined],
  ])('encodes %i ms in the first 10 Crockford characters', (ms, expected) => {
    const id = ulid(ms, seededRandom(1));
    expect(id).toMatch(CROCKFORD);
    if (expected) expect(id.slice(0, 10)).toBe(expected);
  });

  it('sorts by time: a later millisecond gives a greater id', () => {
    const t = Date.UTC(2026, 10, 22, 10, 30);
    expect(ulid(t + 1, seededRandom(9)) > ulid(t, seededRandom(9))).toBe(true);
  });

  it('clamps negative and fractional times', () => {
    expect(ulid(-5, seededRandom(1)).slice(0, 10)).toBe('0000000000');
    expect(ulid(33.9, seededRandom(1)).slice(0, 10)).toBe('0000000011');
  });

  // issue 25: the time's characters are kept from one id to the next in the same millisecond.
  it('encodes each id\'s own millisecond when ids of different instants alternate', () => {
    const random = seededRandom(5);
    const times: [number, string][] = [[32, '0000000010'], [32, '0000000010'], [33, '0000000011'], [32, '0000000010'], [1024, '0000000100'], [31, '000000000Z']];
    for (const [ms, time] of times) expect(ulid(ms, random).slice(0, 10)).toBe(time);
  });

  it('takes each random character from the low 5 bits of its byte, in order', () => {
    const bytes = Uint8Array.from({ length: 16 }, (_, i) => i * 2 + 64 * (i % 4));
    const fixed = { bytes: () => bytes, float: () => 0 };
    expect(ulid(0, fixed).slice(10)).toBe('02468ACEGJMPRTWY');
  });

  it('never uses the letters I, L, O or U', () => {
    const random = seededRandom(42);
    for (let i = 0; i < 200; i++) expect(ulid(i * 7919, random)).not.toMatch(/[ILOU]/);
  });
});

describe('ids (spec: Conventions, Identifiers — a prefix plus 26 characters)', () => {
  it.each(Object.entries(ID_PREFIXES) as [IdKind, string][])('makes %s ids with the prefix %s', (kind, prefix) => {
    const id = new IdFactory(() => Date.UTC(2026, 10, 22), seededRandom(3)).next(kind);
    expect(id.startsWith(prefix)).toBe(true);
    expect(id).toHaveLength(prefix.length + 26);
    expect(isId(kind, id)).toBe(true);
    expect(idPattern(kind).test(id)).toBe(true);
  });

  it.each([
    ['product', 'prd_01JD0000000000000000000000', true],
    ['product', 'prd_01JD000000000000000000000', false],
    ['product', 'prd_01JD00000000000000000000000', false],
    ['product', 'cat_01JD0000000000000000000000', false],
    ['product', 'prd_01jd0000000000000000000000', false],
    ['product', 'prd_01JD000000000000000000000I', false],
    ['order', 'ord_01JD0000000000000000000000', true],
    ['order', 42, false],
  ] as [IdKind, unknown, boolean][])('isId(%s, %j) is %s', (kind, value, expected) => {
    expect(isId(kind, value)).toBe(expected);
  });

  it('makes the same ids from the same seed and clock', () => {
    const make = () => new IdFactory(() => 1_795_354_200_000, seededRandom(7));
    const a = make();
    const b = make();
    expect([a.next('order'), a.next('event')]).toEqual([b.next('order'), b.next('event')]);
  });

  it('makes different ids in the same millisecond', () => {
    const ids = new IdFactory(() => 1_795_354_200_000, seededRandom(7));
    expect(ids.next('order')).not.toBe(ids.next('order'));
  });
});
