import type { SessionDelivery } from '../../src/contract/observation.js';
import type { Clock } from '../clock.js';
import type { OrderDelivery } from '../webhooks/repository.js';

/**
 * A delivery as the observer grades it. `answered_at` is real time, which the observer compares with
 * the calls' arrival: the emulator's time under a system clock never advanced; otherwise (a manual
 * clock stands still, an advance may have come after the attempt) it cannot be known, and is null.
 */
export function toSessionDelivery(d: OrderDelivery, clock: Clock): SessionDelivery {
  return {
    order_id: d.orderId,
    event_type: d.eventType,
    order_status: d.orderStatus,
    status: d.status,
    succeeded_at: d.succeededAt,
    answered_at: d.answeredAt !== null && clock.mode === 'system' && clock.offsetMs() === 0 ? d.answeredAt : null,
    last_response_status: d.lastResponseStatus,
  };
}
