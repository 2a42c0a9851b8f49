import type { EnvContext } from '../context.js';
import type { SessionDelivery } from '../../checks/observation.js';

interface DeliveryFact {
  order_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: string;
  succeeded_at: number | null;
  last_response_status: number | null;
}

const statements = new WeakMap<EnvContext, ReturnType<typeof prepare>>();

// The observer's reads over the webhook tables: the deliveries of events about given orders, with
// the time of their first success (read only; the dispatcher owns these tables).
function prepare(env: EnvContext) {
  const byOrder = env.db.prepare<{ integration_id: string; order_id: string }, DeliveryFact>(
    `SELECT json_extract(d.body, '$.data.order.id') AS order_id, d.event_id, d.event_type, d.body, d.status,
       (SELECT MIN(a.attempted_at) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.succeeded = 1) AS succeeded_at,
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

export function toSessionDelivery(d: DeliveryFact): SessionDelivery {
  return {
    order_id: d.order_id,
    event_type: d.event_type,
    status: d.status,
    succeeded_at: d.succeeded_at,
    last_response_status: d.last_response_status,
  };
}
