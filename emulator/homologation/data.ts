import type { EnvContext } from '../context.js';
import type { SessionDelivery } from '../../checks/observation.js';
import type { Clock } from '../clock.js';

interface DeliveryFact {
  order_id: string;
  order_status: string | null;
  event_id: string;
  event_type: string;
  body: string;
  status: string;
  succeeded_at: number | null;
  /** The emulator's time the first successful attempt was answered (its start plus its duration). */
  answered: number | null;
  last_response_status: number | null;
}

const statements = new WeakMap<EnvContext, ReturnType<typeof prepare>>();

// The observer's reads over the webhook tables: the deliveries of events about given orders, with
// the time of their first success (read only; the dispatcher owns these tables).
function prepare(env: EnvContext) {
  const byOrder = env.db.prepare<{ integration_id: string; order_id: string }, DeliveryFact>(
    `SELECT json_extract(d.body, '$.data.order.id') AS order_id, json_extract(d.body, '$.data.order.status') AS order_status,
       d.event_id, d.event_type, d.body, d.status,
       (SELECT MIN(a.attempted_at) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.succeeded = 1) AS succeeded_at,
       (SELECT a.attempted_at + a.duration_ms FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.succeeded = 1 ORDER BY a.number LIMIT 1) AS answered,
       (SELECT a.response_status FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.number DESC LIMIT 1) AS last_response_status
     FROM webhook_deliveries d
     WHERE d.integration_id = @integration_id AND json_extract(d.body, '$.data.order.id') = @order_id
     ORDER BY d.seq`,
  );
  return { byOrder };
}

function statementsOf(env: EnvContext) {
  let s = statements.get(env);
  if (!s) statements.set(env, (s = prepare(env)));
  return s;
}

/** Regular deliveries of the events about one order, oldest first (with the raw body kept for probes). */
export function deliveriesOf(env: EnvContext, integrationId: string, orderId: string): DeliveryFact[] {
  return statementsOf(env).byOrder.all({ integration_id: integrationId, order_id: orderId });
}

/**
 * A delivery as the observer grades it. `answered_at` is real time, which the observer compares with
 * the calls' arrival: the emulator's time under a system clock never advanced; otherwise (a manual
 * clock stands still, an advance may have come after the attempt) it cannot be known, and is null.
 */
export function toSessionDelivery(d: DeliveryFact, clock: Clock): SessionDelivery {
  return {
    order_id: d.order_id,
    event_type: d.event_type,
    order_status: d.order_status,
    status: d.status,
    succeeded_at: d.succeeded_at,
    answered_at: d.answered !== null && clock.mode === 'system' && clock.offsetMs() === 0 ? d.answered : null,
    last_response_status: d.last_response_status,
  };
}

const productStatements = new WeakMap<EnvContext, ReturnType<typeof prepareProducts>>();

function prepareProducts(env: EnvContext) {
  return env.db.prepare<{ store_id: string; integration_id: string }, { external_id: string; name: string }>(
    `SELECT external_id, name FROM products
     WHERE store_id = @store_id AND integration_id = @integration_id AND external_id IS NOT NULL AND active = 1 AND available = 1
     ORDER BY created_at, rowid LIMIT 1`,
  );
}

/** The first product the integration published (by time, then insertion) still active and available: what a mark_unavailable task names. */
export function publishedProduct(env: EnvContext, storeId: string, integrationId: string): { external_id: string; name: string } | undefined {
  let s = productStatements.get(env);
  if (!s) productStatements.set(env, (s = prepareProducts(env)));
  return s.get({ store_id: storeId, integration_id: integrationId });
}

const importable = new WeakMap<EnvContext, ReturnType<typeof prepareImportable>>();

function prepareImportable(env: EnvContext) {
  return env.db.prepare<{ store_id: string; integration_id: string }, { id: string }>(
    `SELECT p.id FROM products p JOIN categories c ON c.id = p.category_id
     WHERE p.store_id = @store_id AND p.external_id IS NOT NULL AND p.active = 1 AND p.available = 1 AND c.active = 1
       AND NOT EXISTS (SELECT 1 FROM option_groups g WHERE g.product_id = p.id AND g.min_select > 0)
     ORDER BY p.integration_id IS NOT @integration_id, p.created_at, p.rowid LIMIT 1`,
  );
}

/**
 * A product the ERP can import (it has an external code, the integration's own first) that needs no
 * option: the session's orders other than `unmapped_product` carry it, so that none of them turns
 * into an import failure by chance (the simulator would otherwise pick any product, the panel's too).
 */
export function importableProduct(env: EnvContext, storeId: string, integrationId: string): string | undefined {
  let s = importable.get(env);
  if (!s) importable.set(env, (s = prepareImportable(env)));
  return s.get({ store_id: storeId, integration_id: integrationId })?.id;
}
