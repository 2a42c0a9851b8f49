import type { EnvContext } from '../context.js';

/** Panel warnings of a store (orders waiting for ack past ack_alert_minutes, import failures). */
export function storeAlerts(_env: EnvContext, _storeId: string): unknown[] {
  return [];
}
