import { describe, expect, it } from 'vitest';
import { AMOUNT_PATTERN, formatAmount, MAX_AMOUNT_CENTS, parseAmount } from '../../src/contract/amounts.js';
import { amount } from '../../src/contract/common.js';

describe('parseAmount (spec: Conventions, Amounts)', () => {
  it.each([
    ['0', 0],
    ['15000', 1_500_000],
    ['15000.5', 1_500_050],
    ['15000.50', 1_500_050],
    ['0.01', 1],
    ['0.1', 10],
    ['1000000000000', MAX_AMOUNT_CENTS],
  ])('reads %s as %i hundredths', (text, cents) => {
    expect(parseAmount(text)).toBe(cents);
  });

  it.each(['', '-1', '1.', '.5', '1.234', '01', '00.5', '1,5', '1 000', '15.000,00', '1e3', '+1', ' 1', 'NaN', '0x10'])(
    'rejects %j, which is not decimal text with a dot and up to 2 decimals',
    (text) => {
      expect(AMOUNT_PATTERN.test(text)).toBe(false);
      expect(() => parseAmount(text)).toThrow(RangeError);
    },
  );

  it.each(['1000000000000.01', '99999999999999999999'])('rejects %s as too large to add up safely', (text) => {
    expect(() => parseAmount(text)).toThrow(/too large/);
  });
});

describe('formatAmount', () => {
  it.each([
    [0, '0'],
    [1, '0.01'],
    [10, '0.10'],
    [1_500_000, '15000'],
    [1_500_050, '15000.50'],
    [1_500_005, '15000.05'],
    [-150, '-1.50'],
    [-1_500_000, '-15000'],
  ])('writes %i hundredths as %j', (cents, text) => {
    expect(formatAmount(cents)).toBe(text);
  });

  it.each([1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('refuses %d, which is not a safe integer', (cents) => {
    expect(() => formatAmount(cents)).toThrow(RangeError);
  });

  it('round-trips every non-negative amount it writes', () => {
    for (const cents of [0, 1, 99, 100, 101, 123_456_789, MAX_AMOUNT_CENTS]) expect(parseAmount(formatAmount(cents))).toBe(cents);
  });
});

describe('the amount schema', () => {
  it('accepts decimal text and refuses numbers and amounts over the maximum', () => {
    expect(amount.safeParse('15000.50').success).toBe(true);
    expect(amount.safeParse(15000).success).toBe(false);
    expect(amount.safeParse('1000000000000.01').success).toBe(false);
  });
});
