import { describe, expect, it } from 'vitest';
import { deepFreeze, Kept } from '../../../../emulator/adapters/postgres/kept.js';

// What a PostgreSQL adapter keeps between requests (the admission's pages and orders, the cart's
// orderable ids and products: issue 25) is bounded by count and by bytes: past either, everything
// is dropped and read again.

describe('the values a process keeps', () => {
  it('drops everything when one more would pass the count', () => {
    const kept = new Kept<string>(3, 1_000, (v) => v.length);
    for (const key of ['a', 'b', 'c']) kept.keep(key, key);
    kept.keep('a', 'a2');
    expect(['a', 'b', 'c'].map((k) => kept.get(k))).toEqual(['a2', 'b', 'c']);
    kept.keep('d', 'd');
    expect(['a', 'b', 'c', 'd'].map((k) => kept.get(k))).toEqual([undefined, undefined, undefined, 'd']);
  });

  it('drops everything when one more would pass the bytes, counting a replaced value once', () => {
    const kept = new Kept<string>(100, 10, (v) => v.length);
    kept.keep('a', 'xxxx');
    kept.keep('a', 'xxxxx');
    kept.keep('b', 'yyyyy');
    expect([kept.get('a'), kept.get('b')]).toEqual(['xxxxx', 'yyyyy']);
    kept.keep('c', 'z');
    expect([kept.get('a'), kept.get('b'), kept.get('c')]).toEqual([undefined, undefined, 'z']);
  });

  it('freezes what it hands out, nested values included', () => {
    const value = deepFreeze({ product: { name: 'Cola' }, options: [{ price: 1 }] });
    expect(Object.isFrozen(value.options[0])).toBe(true);
    expect(() => {
      (value.product as { name: string }).name = 'otra';
    }).toThrow(TypeError);
  });
});
