import type { EnvContext } from '../context.js';
import type { OrderRecord } from './repository.js';
import { formatDate } from '../../src/contract/dates.js';
import type { StoreAlert } from '../../src/contract/control.js';

export type { StoreAlert };

const FINISHED = new Set(['rejected', 'cancelled', 'completed']);

/**
 * When the confirmation clock starts (spec: Integration settings, ack_expected): at receipt, or
 * only once the merchant accepted the order. Null: no confirmation is expected yet.
 */
function waitingSince(order: OrderRecord, ackExpected: 'on_receipt' | 'after_acceptance'): number | null {
  if (ackExpected === 'on_receipt') return order.createdAt;
  return order.acceptedAt;
}

/**
 * Panel warnings of a store (DESIGN: /_emulator/state): orders without import confirmation past
 * `ack_alert_minutes`, and orders whose import failed. Closed orders (rejected, cancelled,
 * completed) no longer warn about a missing confirmation; a failure keeps showing until an ack.
 */
export async function storeAlerts(env: EnvContext, storeId: string): Promise<StoreAlert[]> {
  const integration = (await env.store.integrations.byStore(storeId))[0];
  if (!integration) return [];
  const { ack_expected: expected, ack_alert_minutes: alertMinutes } = integration.settings;
  const now = env.clock.now();
  const alerts: StoreAlert[] = [];
  for (const order of await env.store.orders.notAcknowledged(storeId)) {
    if (order.ackStatus === 'failed' && order.lastImportError) {
      const e = order.lastImportError;
      alerts.push({ type: 'import_failed', order_id: order.id, number: order.number, code: e.code, message: e.message, retryable: e.retryable, at: formatDate(e.at) });
      continue;
    }
    const since = waitingSince(order, expected);
    if (since === null || FINISHED.has(order.status)) continue;
    const minutes = Math.floor((now - since) / 60_000);
    if (minutes >= alertMinutes) {
      alerts.push({ type: 'ack_overdue', order_id: order.id, number: order.number, waiting_since: formatDate(since), minutes_waiting: minutes, ack_alert_minutes: alertMinutes });
    }
  }
  return alerts;
}
