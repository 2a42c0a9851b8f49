import { describe, expect, it } from 'vitest';
import { mayChange, transition, type TransitionResult } from '../../../emulator/orders/status-machine.js';
import { CHANGE_ACTORS, ORDER_STATUSES, type OrderStatus } from '../../../src/contract/orders.js';

// The spec's table written out by hand, one row per current state: what each target gives for a
// delivery order. `same` = 200 without effect; `invalid` = 409 invalid_status_transition.
const S = 'same', A = 'allowed', X = 'invalid';
const EXPECTED: Record<OrderStatus, Record<OrderStatus, TransitionResult>> = {
  //                pending accepted preparing ready out_for_delivery completed rejected cancelled
  pending:          { pending: S, accepted: A, preparing: X, ready: X, out_for_delivery: X, completed: X, rejected: A, cancelled: A },
  accepted:         { pending: X, accepted: S, preparing: A, ready: A, out_for_delivery: A, completed: A, rejected: X, cancelled: A },
  preparing:        { pending: X, accepted: X, preparing: S, ready: A, out_for_delivery: A, completed: A, rejected: X, cancelled: A },
  ready:            { pending: X, accepted: X, preparing: X, ready: S, out_for_delivery: A, completed: A, rejected: X, cancelled: A },
  out_for_delivery: { pending: X, accepted: X, preparing: X, ready: X, out_for_delivery: S, completed: A, rejected: X, cancelled: A },
  completed:        { pending: X, accepted: X, preparing: X, ready: X, out_for_delivery: X, completed: S, rejected: X, cancelled: X },
  rejected:         { pending: X, accepted: X, preparing: X, ready: X, out_for_delivery: X, completed: X, rejected: S, cancelled: X },
  cancelled:        { pending: X, accepted: X, preparing: X, ready: X, out_for_delivery: X, completed: X, rejected: X, cancelled: S },
};

describe('transition (spec: Order status, rules 1–5)', () => {
  const pairs = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)('delivery order %s → %s follows the table', (from, to) => {
    expect(transition(from, to, 'delivery')).toBe(EXPECTED[from][to]);
  });

  it.each(pairs)('pickup order %s → %s follows the table, except out_for_delivery is never reachable', (from, to) => {
    const expected = to === 'out_for_delivery' && from !== to ? X : EXPECTED[from][to];
    expect(transition(from, to, 'pickup')).toBe(expected);
  });
});

describe('mayChange (spec: rule 6, DESIGN order_status_authority)', () => {
  it('refuses the API (integration) only with authority service', () => {
    expect(mayChange('integration', 'both', 'pending', 'accepted')).toBe(true);
    expect(mayChange('integration', 'erp', 'pending', 'accepted')).toBe(true);
    expect(mayChange('integration', 'service', 'pending', 'accepted')).toBe(false);
  });

  it('refuses the panel (store_user) only with authority erp', () => {
    expect(mayChange('store_user', 'both', 'pending', 'accepted')).toBe(true);
    expect(mayChange('store_user', 'service', 'pending', 'accepted')).toBe(true);
    expect(mayChange('store_user', 'erp', 'pending', 'accepted')).toBe(false);
  });

  it.each(['both', 'erp', 'service'] as const)('lets a customer cancel a pending order and nothing else (authority %s)', (authority) => {
    for (const from of ORDER_STATUSES) {
      for (const to of ORDER_STATUSES) {
        expect(mayChange('customer', authority, from, to)).toBe(from === 'pending' && to === 'cancelled');
      }
    }
  });

  it('never refuses the service itself (system)', () => {
    for (const authority of ['both', 'erp', 'service'] as const) expect(mayChange('system', authority, 'accepted', 'cancelled')).toBe(true);
    expect(CHANGE_ACTORS).toContain('system');
  });
});
