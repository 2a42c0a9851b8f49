import type { Facts, Observation, OpenedTask, RecordedCall } from '../../src/contract/observation.js';

// Observations written by hand for the graders' table tests: calls in sequence, a session view.

export const T0 = 1_700_000_000_000;
let seq = 0;

/**
 * One recorded call; each new call comes 10 ms after the previous one, read by the emulator as it
 * arrived (`arrived_after` = `at`) and answered 2 ms later.
 */
export function call(method: string, path: string, status: number, more: Partial<RecordedCall> = {}): RecordedCall {
  seq += 1;
  const at = more.at ?? T0 + seq * 10;
  return { seq, at, arrived_after: at, answered_at: at + 2, method, path, status, code: null, idempotency_key: null, duration_ms: 2, body_sha256: `body-${seq}`, request_id: `req_${seq}`, facts: null, injected: false, ...more };
}

export function observation(calls: RecordedCall[], session: Partial<Observation['session']> = {}, now = T0 + 60_000, more: Partial<Observation> = {}): Observation {
  return {
    integration_id: 'int_x',
    environment: 'test',
    scopes: ['store:read', 'store:write', 'catalog:read', 'catalog:write', 'orders:read', 'orders:write', 'webhooks:manage'],
    calls,
    session: { started_at: T0, deadline: T0 + 120_000, orders: [], tasks: [], deliveries: [], probes: [], faults: [], problems: [], waiting: null, webhook: true, finished: true, ended_at: null, ended_seq: null, ...session },
    now,
    settings: { order_status_authority: 'both', ack_expected: 'on_receipt' },
    webhook_active: true,
    ...more,
  };
}

/** After the session's deadline: what is missing fails. */
export const LATE = T0 + 200_000;

/** A status call on an order, with the order's status before it. */
export function move(order: string, from: string, to: string, more: Partial<RecordedCall> & { facts?: Facts } = {}, status = 200): RecordedCall {
  const facts = { status: to, estimated_minutes: false, reason: to === 'rejected' || to === 'cancelled', previous_status: from, ...more.facts };
  return call('POST', `/orders/${order}/status`, status, { ...more, facts });
}

/** A successful batch whose answer says what its operations achieved. */
export function batch(facts: Facts, status = 200): RecordedCall {
  const base = { full_snapshot: false, snapshot_id: null, snapshot_part: null, snapshot_last: false, operations: 1, categories: 0, products_with_options: 0, price_changes: 0, availability_changes: 0, sold_out: '', failed: 0, snapshot_status: null, snapshot_reason: null };
  return call('POST', '/catalog/batch', status, { facts: { ...base, ...facts } });
}

/** The two tasks every session opens on its own orders. */
export const STATUS_TASKS: OpenedTask[] = [
  { id: 'tsk_1', action: 'reject_order', order_id: 'ord_r', order_number: 7, opened_at: T0 },
  { id: 'tsk_2', action: 'cancel_order', order_id: 'ord_c', order_number: 8, opened_at: T0 },
];
