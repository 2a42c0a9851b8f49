import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callEvidence, callName, callsTo, expired, missingSteps, ok2xx, orderOf, repeatedRefusal, stepEvidence } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureOrders } from './internal/setup.js';
import type { Observation, RecordedCall } from '../src/contract/observation.js';
import { gradeTasks, taskEvidence, taskName } from './tasks.js';
import { fail, pass, type CheckOutcome, type Evidence } from './types.js';
import { FINAL_ORDER_STATUSES } from '../src/contract/enums.js';

/** spec: States and transitions — the forward stage order. */
const STAGES = ['pending', 'accepted', 'preparing', 'ready', 'out_for_delivery', 'completed'] as const;

/** A forward move of an accepted order: to any later stage (stages may be skipped: accepted → ready…). */
export function movesForward(from: string | null | undefined, to: string | null | undefined): boolean {
  const a = STAGES.indexOf(from as (typeof STAGES)[number]);
  const b = STAGES.indexOf(to as (typeof STAGES)[number]);
  return a >= 1 && b > a;
}

const FINAL: readonly unknown[] = FINAL_ORDER_STATUSES;

/**
 * How long a receiver's 2xx must precede a move for the move to count as made knowingly: a call the
 * ERP had already sent when the event came is not acting on what it was told.
 */
export const TOLD_SLACK_MS = 1000;

/** A status call that tries to move an order that was final when it came (a move to its own state changes nothing). */
const movesFinal = (c: RecordedCall) => FINAL.includes(c.facts?.previous_status) && c.facts?.status !== c.facts?.previous_status;

/**
 * Whether, and how, the ERP had been told before `call` that its order is final: an answer to one
 * of its own status calls about the order, or an event its receiver took with the final order.
 */
export function toldFinal(obs: Observation, call: RecordedCall): string | null {
  const orderId = orderOf(call);
  const own = obs.calls.find(
    (c) => c.seq < call.seq && c.method === 'POST' && c.path === call.path && !c.injected && ((ok2xx(c) && FINAL.includes(c.facts?.status)) || FINAL.includes(c.facts?.previous_status)),
  );
  if (own) return `the answer to ${callName(own)} showed it ${ok2xx(own) && FINAL.includes(own.facts?.status) ? own.facts?.status : own.facts?.previous_status}`;
  const delivery = obs.session.deliveries.find((d) => d.order_id === orderId && FINAL.includes(d.order_status) && d.answered_at !== null && d.answered_at + TOLD_SLACK_MS <= call.at);
  if (delivery) return `its webhook receiver answered 2xx to the ${delivery.event_type} event showing it ${delivery.order_status}`;
  return null;
}

/** The first move on an order the ERP had been told is final, as a failure naming the call and how it was told. */
function moveOnFinal(obs: Observation, calls: RecordedCall[]): CheckOutcome | null {
  for (const c of calls.filter(movesFinal)) {
    const told = toldFinal(obs, c);
    if (!told) continue;
    const evidence = [callEvidence(`move to ${c.facts?.status} on a ${c.facts?.previous_status} order`, c, false, 'no move on an order known to be final')];
    return fail(`${callName(c)} tried to move order ${orderOf(c)} to ${c.facts?.status} after the ERP had been told it was final (${told})`, evidence);
  }
  return null;
}

export const statuses: Check = {
  id: 'statuses',
  title: 'Statuses: accept with minutes, forward moves, reject and cancel with reasons, refusals understood',
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
    const wrong = repeatedRefusal(obs, calls, 'a status move') ?? moveOnFinal(obs, calls);
    if (wrong) return wrong;
    const evidence: Evidence[] = [];
    const good = calls.filter(ok2xx);
    const step = (label: string, c: RecordedCall | undefined) => evidence.push(stepEvidence(label, c));
    step('accept with estimated minutes', good.find((c) => c.facts?.status === 'accepted' && c.facts.estimated_minutes === true));
    step('an accepted order moved forward (stages may be skipped)', good.find((c) => movesForward(c.facts?.previous_status as string, c.facts?.status as string)));
    const tasks = gradeTasks(obs).filter((t) => t.action === 'reject_order' || t.action === 'cancel_order');
    const failed = tasks.find((t) => t.status === 'failed');
    for (const action of ['reject_order', 'cancel_order'] as const) {
      if (!tasks.some((t) => t.action === action)) evidence.push({ step: `task ${action}`, ok: false, expected: 'opened by the session, then done', actual: 'not opened (no session yet, or its order could not be made: see the notes)' });
    }
    evidence.push(...tasks.map(taskEvidence));
    if (failed) return fail(`task ${failed.id} (${failed.action}) was done wrongly: ${failed.reason}`, evidence);
    if (evidence.every((e) => e.ok)) return pass('accept with minutes, a forward move, the rejection and the cancellation asked for, and no move on a final order or repeated refusal', evidence);
    const open = tasks.filter((t) => t.status === 'open');
    if (!expired(obs) || open.length === 0) return missingSteps(obs, evidence);
    const others = evidence.filter((e) => !e.ok && !e.step.startsWith('task ')).map((e) => e.step);
    return fail(`tasks still open: ${open.map((t) => `${t.id} ${taskName(t)}`).join(', ')}${others.length ? `; missing: ${others.join('; ')}` : ''}`, evidence);
  },
};
