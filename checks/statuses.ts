import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callEvidence, callsTo, missingSteps, ok2xx, repeatedAfter, stepEvidence } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureOrders } from './internal/setup.js';
import type { RecordedCall } from './observation.js';
import { fail, pass, type Evidence } from './types.js';

/** spec: States and transitions — the forward stage order. */
const STAGES = ['pending', 'accepted', 'preparing', 'ready', 'out_for_delivery', 'completed'] as const;

/** A forward move that skips at least one stage (accepted → ready, accepted → completed…). */
export function skipsForward(from: string | null | undefined, to: string | null | undefined): boolean {
  const a = STAGES.indexOf(from as (typeof STAGES)[number]);
  const b = STAGES.indexOf(to as (typeof STAGES)[number]);
  return a >= 1 && b - a >= 2;
}

export const statuses: Check = {
  id: 'statuses',
  title: 'Statuses: accept with minutes, forward skips, reject and cancel with reasons, illegal moves',
  area: 'orders',
  mandatory: true,
  rule: 'Order status: pending → accepted (estimated_minutes 1–600), later stages may be skipped, rejected only from pending and cancelled from any non-final state with a reason (3–255), anything else 409 invalid_status_transition with details.current_status — a 4xx never repeated.',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    const orders = await ensureOrders(ctx, log);
    if (typeof orders === 'string') return fail(orders, log.items);
    const move = async (step: string, order: Order, body: Parameters<typeof ctx.client.orders.setStatus>[1], want: string) => {
      const r = await log.call(step, (o) => ctx.client.orders.setStatus(order.id, body, o));
      if (!r.ok) return `${step} failed: ${describeError(r.error)}`;
      const got = r.value;
      return log.judge(got.status === want, want, got.status) ? null : `${step} left the order ${got.status}`;
    };
    const d = orders.delivery;
    const problem =
      (await move('accept with estimated minutes', d, { status: 'accepted', estimated_minutes: 25 }, 'accepted')) ??
      (await move('forward skip accepted → ready', d, { status: 'ready' }, 'ready')) ??
      (await move('forward skip ready → completed', d, { status: 'completed' }, 'completed')) ??
      (await move('reject with a reason', orders.pickup_invoice, { status: 'rejected', reason: 'Out of stock for this order' }, 'rejected')) ??
      (await move('cancel with a reason', orders.unmapped_product, { status: 'cancelled', reason: 'The customer asked to cancel' }, 'cancelled'));
    if (problem) return fail(problem, log.items);
    const illegal = await log.call('illegal move completed → preparing', (o) => ctx.client.orders.setStatus(d.id, { status: 'preparing' }, o));
    const current = !illegal.ok ? (illegal.error.details as { current_status?: string } | undefined)?.current_status : undefined;
    const ok = !illegal.ok && illegal.error.code === 'invalid_status_transition' && illegal.answers.length === 1 && current === 'completed';
    log.judge(ok, '409 invalid_status_transition (current_status completed), not retried', illegal.ok ? 'accepted' : `${describeError(illegal.error)}, current_status ${current ?? 'absent'}, ${illegal.answers.length} attempt(s)`);
    if (!ok) return fail('an illegal move was not refused with one 409 invalid_status_transition', log.items);
    return pass('accept with minutes, forward skips, reject and cancel with reasons succeeded; an illegal move got one 409', log.items);
  },

  grade(obs) {
    const calls = callsTo(obs, 'POST', '/orders/*/status').filter((c) => !c.injected);
    const good = calls.filter(ok2xx);
    const evidence: Evidence[] = [];
    const step = (label: string, c: RecordedCall | undefined) => evidence.push(stepEvidence(label, c));
    step('accept with estimated minutes', good.find((c) => c.facts?.status === 'accepted' && c.facts.estimated_minutes === true));
    step('forward move skipping a stage', good.find((c) => skipsForward(c.facts?.previous_status as string, c.facts?.status as string)));
    step('reject with a reason', good.find((c) => c.facts?.status === 'rejected' && c.facts.reason === true));
    step('cancel with a reason', good.find((c) => c.facts?.status === 'cancelled' && c.facts.reason === true));
    const illegal = calls.filter((c) => c.code === 'invalid_status_transition');
    const repeated = illegal.find((c) => repeatedAfter(obs, c));
    if (repeated) {
      evidence.push(callEvidence('illegal move', repeated, false, '409, not repeated'));
      return fail('a move refused with 409 invalid_status_transition was sent again', evidence);
    }
    const refused = 'illegal move refused with 409, not repeated';
    evidence.push(illegal[0] ? callEvidence(refused, illegal[0], true) : stepEvidence(refused, undefined));
    if (evidence.every((e) => e.ok)) return pass('accept with minutes, a forward skip, reject and cancel with reasons, and an illegal move refused once', evidence);
    return missingSteps(obs, evidence);
  },
};
