import { colors } from '../../output.js';

/** An event of the feed, or an order read by reconciliation (`order.reconciled`, no event id). */
export interface Printable {
  type: string;
  id?: string;
  created_at?: string;
  data?: Record<string, unknown>;
}

function orderPart(data: Record<string, unknown> | undefined): { id: string; status: string | null; updatedAt: string | null } | null {
  const order = data?.order as { id?: unknown; status?: unknown; updated_at?: unknown } | undefined;
  if (!order || typeof order.id !== 'string') return null;
  return {
    id: order.id,
    status: typeof order.status === 'string' ? order.status : null,
    updatedAt: typeof order.updated_at === 'string' ? order.updated_at : null,
  };
}

/**
 * One line for people: when, type, event id, and the order with its status for order events.
 * A reconciled order has no event id; its time is the order's `updated_at`.
 *
 * @example
 * feedHumanLine({ type: 'order.created', id: 'evt_1', created_at: '2026-11-24T01:00:00-03:00', data: { order: { id: 'ord_1', status: 'pending' } } })
 * // → '2026-11-24T01:00:00-03:00  order.created  evt_1  ord_1 (pending)'
 */
export function feedHumanLine(item: Printable): string {
  const c = colors();
  const order = orderPart(item.data);
  const when = item.created_at ?? order?.updatedAt ?? '';
  const parts = [c.dim(when), c.green(item.type)];
  if (item.id) parts.push(item.id);
  if (order) parts.push(order.status ? `${order.id} (${order.status})` : order.id);
  return parts.join('  ');
}

/**
 * The `--json` line of an event forwarded to the app: which event (or reconciled order), when, the
 * app's 2xx status and how many attempts it took. The event itself went to the app, not to stdout.
 *
 * @example
 * forwardedJson({ type: 'order.created', id: 'evt_1', created_at: '2026-11-24T01:00:00-03:00', data: { order: { id: 'ord_1' } } }, 200, 1)
 * // → '{"event_id":"evt_1","type":"order.created","created_at":"2026-11-24T01:00:00-03:00","order_id":"ord_1","forwarded_status":200,"attempts":1}'
 */
export function forwardedJson(item: Printable, status: number, attempts: number): string {
  const order = orderPart(item.data);
  return JSON.stringify({
    event_id: item.id ?? null,
    type: item.type,
    created_at: item.created_at ?? order?.updatedAt ?? null,
    order_id: order?.id ?? null,
    forwarded_status: status,
    attempts,
  });
}
