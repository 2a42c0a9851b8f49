import type { EnvContext } from '../context.js';
import { changeStatus } from '../orders/commands.js';
import type { SessionView } from '../../src/contract/observation.js';
import { apiMeaning } from '../../checks/internal/api-meaning.js';

/** DESIGN: ack_expected after_acceptance — how long the ERP may leave a session order pending before the merchant accepts it. */
export const ACCEPT_AFTER_MS = 10_000;

/**
 * DESIGN: with `ack_expected: after_acceptance` the session, as the merchant in the panel, accepts
 * every session order the ERP leaves pending for ACCEPT_AFTER_MS (the unmapped one included), so
 * that an ERP waiting for the panel's acceptance acks and reports failures after it. The orders of
 * reject_order tasks are left to the person (a merchant does not accept what they were asked to
 * reject). `handled` keeps the orders already looked at; true when something changed.
 */
export async function acceptLeftPending(env: EnvContext, view: SessionView, handled: Set<string>, now = Date.now()): Promise<boolean> {
  let changed = false;
  const toReject = new Set(view.tasks.filter((t) => t.action === 'reject_order').map((t) => t.order_id));
  for (const o of view.orders) {
    if (handled.has(o.order_id) || toReject.has(o.order_id) || now - (o.created_at ?? view.started_at) < ACCEPT_AFTER_MS) continue;
    handled.add(o.order_id);
    const order = await env.store.orders.byId(o.order_id);
    if (order?.status !== 'pending') continue;
    try {
      await changeStatus(env, o.order_id, null, { type: 'store_user', integrationId: null }, { status: 'accepted', estimated_minutes: 20 });
    } catch (error) {
      // The ERP may have moved it meanwhile; anything else is worth a note.
      const after = await env.store.orders.byId(o.order_id);
      if (after?.status === 'pending') view.problems.push(`order #${o.number} could not be accepted in the panel (ack_expected: after_acceptance): ${apiMeaning(error)}`);
    }
    changed = true;
  }
  return changed;
}
