import type { ChangeActor, OrderStatus } from '../../src/contract/orders.js';
import { FINAL_ORDER_STATUSES } from '../../src/contract/enums.js';

/** spec: Order status — forward stage order; rejected and cancelled sit outside it. */
const STAGES: readonly OrderStatus[] = ['pending', 'accepted', 'preparing', 'ready', 'out_for_delivery', 'completed'];

export type Fulfillment = 'delivery' | 'pickup';
export type StatusAuthority = 'both' | 'erp' | 'service';

export type TransitionResult = 'same' | 'allowed' | 'invalid';

/**
 * spec: Order status, rules 1–5. `same` is the 200-without-effect case; `invalid` answers 409
 * `invalid_status_transition`.
 */
export function transition(current: OrderStatus, target: OrderStatus, fulfillment: Fulfillment): TransitionResult {
  if (current === target) return 'same';
  if ((FINAL_ORDER_STATUSES as readonly OrderStatus[]).includes(current)) return 'invalid'; // rule 2: final states do not move
  if (target === 'out_for_delivery' && fulfillment !== 'delivery') return 'invalid'; // rule 3
  if (target === 'cancelled') return 'allowed'; // rule 4: from any non-final state
  if (target === 'rejected') return current === 'pending' ? 'allowed' : 'invalid'; // rule 4
  if (current === 'pending') return target === 'accepted' ? 'allowed' : 'invalid'; // rule 1
  // Later stages only, skipping allowed (rule 2: no going backwards).
  return STAGES.indexOf(target) > STAGES.indexOf(current) ? 'allowed' : 'invalid';
}

/**
 * spec: rule 6 and DESIGN "Store and orders": `service` refuses the API (integration), `erp` refuses
 * the panel (store_user). A customer may only cancel a pending order, whatever the setting. The
 * service itself (`system`) is never refused. Checked before the transition.
 */
export function mayChange(actor: ChangeActor, authority: StatusAuthority, current: OrderStatus, target: OrderStatus): boolean {
  switch (actor) {
    case 'system':
      return true;
    case 'integration':
      return authority !== 'service';
    case 'store_user':
      return authority !== 'erp';
    case 'customer':
      return target === 'cancelled' && current === 'pending';
  }
}
