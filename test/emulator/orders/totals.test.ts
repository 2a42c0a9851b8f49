import { describe, expect, it } from 'vitest';
import { lineTotal, orderTotals } from '../../../emulator/orders/totals.js';
import { formatAmount, parseAmount } from '../../../src/contract/amounts.js';

describe('lineTotal (spec: Order rule 2)', () => {
  it.each([
    // unit, options [price, qty], quantity, expected
    ['35000', [], 1, '35000'],
    ['35000', [['7000.50', 2]], 2, '98002'],
    ['0.10', [['0.20', 1]], 3, '0.90'], // 0.1 + 0.2 is exact here, unlike floats
    ['15000.50', [['0', 1], ['500.25', 3]], 7, '115508.75'], // (15000.50 + 1500.75) × 7,
  ] as const)('(%s + options %j) × %i = %s', (unit, options, quantity, expected) => {
    const total = lineTotal({
      unitPrice: parseAmount(unit), quantity, options: options.map(([p, q]) => ({ unitPrice: parseAmount(p), quantity: q })),
    });
    expect(formatAmount(total)).toBe(expected);
  });

  it('refuses fractional hundredths', () => {
    expect(() => lineTotal({ unitPrice: 10.5, quantity: 1, options: [] })).toThrow(RangeError);
  });
});

describe('orderTotals', () => {
  it('is subtotal + delivery_fee − discount', () => {
    const lines = [
      { unitPrice: parseAmount('35000'), quantity: 2, options: [] },
      { unitPrice: parseAmount('12000.99'), quantity: 1, options: [] },
    ];
    const t = orderTotals(lines, parseAmount('10000'), parseAmount('8200.99'));
    expect([t.subtotal, t.deliveryFee, t.discount, t.total].map(formatAmount)).toEqual(['82000.99', '10000', '8200.99', '83800']);
  });

  it('refuses a discount larger than what is paid', () => {
    expect(() => orderTotals([{ unitPrice: 100, quantity: 1, options: [] }], 0, 101)).toThrow(RangeError);
  });
});
