import { describe, expect, it } from 'vitest';
import { courierQuote, entregaBalance, entregaTransition, refundApplies } from '../../../emulator/entregas/rules.js';
import { ENTREGA_STATUSES } from '../../../src/contract/entregas.js';

describe('independent delivery transitions', () => {
  it.each([
    ['requested', 'pickup', 'picked_up'],
    ['requested', 'raise_fee', 'requested'],
    ['requested', 'cancel', 'cancelled'],
    ['picked_up', 'returned', 'returned'],
    ['picked_up', 'deliver', 'delivered'],
    ['requested', 'returned', null],
    ['requested', 'deliver', null],
    ['picked_up', 'pickup', null],
    ['picked_up', 'cancel', null],
    ['picked_up', 'raise_fee', null],
  ] as const)('from %s, %s leads to %s', (from, action, to) => {
    expect(entregaTransition(from, action)).toBe(to);
  });

  it.each(['delivered', 'returned', 'cancelled'] as const)('%s is final: no action moves it', (status) => {
    for (const action of ['pickup', 'raise_fee', 'cancel', 'returned', 'deliver'] as const) {
      expect(entregaTransition(status, action)).toBeNull();
    }
  });

  it('covers every status', () => {
    expect(ENTREGA_STATUSES).toEqual(['requested', 'picked_up', 'delivered', 'returned', 'cancelled']);
  });
});

describe('balance sign convention', () => {
  const base = { customerTotal: 85_000, courierFee: 12_000, returnFee: null };
  it.each([
    ['cash: the courier hands the merchant the total minus the fee', { ...base, status: 'picked_up', paymentMethod: 'cash' }, 73_000],
    ['transfer: the merchant owes the courier the fee', { ...base, status: 'delivered', paymentMethod: 'bank_transfer' }, -12_000],
    ['card on delivery: the courier holds no money', { ...base, status: 'requested', paymentMethod: 'card_on_delivery' }, -12_000],
    ['returned: the merchant owes the fee plus the return fee', { ...base, status: 'returned', paymentMethod: 'cash', returnFee: 5_000 }, -17_000],
    ['cancelled before pickup: nothing moves', { ...base, status: 'cancelled', paymentMethod: 'cash' }, 0],
  ] as const)('%s', (_name, input, balance) => {
    expect(entregaBalance(input)).toBe(balance);
  });

  it('needs a refund confirmation only when the customer already paid', () => {
    expect(['cash', 'bank_transfer', 'card_on_delivery', 'qr', 'prepaid'].filter((p) => refundApplies(p as never))).toEqual([
      'bank_transfer', 'qr', 'prepaid',
    ]);
  });

  it('quotes the order delivery fee in whole guaraníes, at least 10,000', () => {
    expect(courierQuote(1_500_050)).toBe(15_001);
    expect(courierQuote(0)).toBe(10_000);
  });
});
