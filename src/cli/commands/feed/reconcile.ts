import type { MerchantClient } from '../../../client/merchant-client.js';

/** What `feed tail` prints and forwards for an order read by a reconciliation (not an API event). */
export interface ReconciledOrder {
  type: 'order.reconciled';
  data: { order: Record<string, unknown> & { id: string; updated_at: string } };
}

const RECONCILED_TYPE = 'order.reconciled';

/**
 * spec: GET /events — after `cursor_expired` "the client then reconciles with GET
 * /orders?updated_since=<datetime>". Every order changed since `since` (oldest first, every
 * page), wrapped like an order event so the app's order handler takes it; like any order event
 * the app keeps it only when its `updated_at` is newer than what it holds.
 */
export async function* ordersSince(client: MerchantClient, since: string, signal: AbortSignal): AsyncGenerator<ReconciledOrder> {
  for await (const order of client.orders.list({ updated_since: since, limit: 200 }, { signal })) {
    yield { type: RECONCILED_TYPE, data: { order: order as unknown as ReconciledOrder['data']['order'] } };
  }
}

/** The stderr line that says what happened and what is done about it. */
export function expiredNotice(since: string): string {
  return `The feed cursor expired (events are kept 30 days): reconciling with GET /orders?updated_since=${since}, then reading on from the oldest available event.`;
}
