import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callEvidence, callName, callsTo, expired, missingSteps, ok2xx, orderOf, refusal, refusedThenRepeated, repeatedRefusal, stepEvidence, waitingForOrders } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureOrders } from './internal/setup.js';
import type { Observation, RecordedCall } from '../src/contract/observation.js';
import { gradeTasks, madeFinalBeforeDone, taskEvidence, taskName, type Task } from './tasks.js';
import { fail, pass, pending, skip, type CheckOutcome, type Evidence } from './types.js';
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
 * DESIGN: "told" that an order is final — its receiver answered 2xx to the final event at least this
 * long before the move (time for a queue to catch up).
 */
export const TOLD_SLACK_MS = 10_000;

/** A status call that tries to move an order that was final when it came (a move to its own state changes nothing). */
const movesFinal = (c: RecordedCall) => FINAL.includes(c.facts?.previous_status) && c.facts?.status !== c.facts?.previous_status;

/** When the answer to `c` was sent (calls recorded before the answer time was kept: their arrival plus their duration). */
const answeredAt = (c: RecordedCall) => c.answered_at ?? c.at + c.duration_ms;

/**
 * Whether, and how, the ERP had been told before `call` that its order is final (DESIGN): its own
 * API read showed it final — GET /orders/{id}, or the answer to one of its status calls about the
 * order (a 2xx into a final state, or a refusal whose current status was final) — answered before
 * the call came; or its receiver answered 2xx to an event showing it final at least TOLD_SLACK_MS
 * before.
 */
export function toldFinal(obs: Observation, call: RecordedCall): string | null {
  const orderId = orderOf(call);
  const own = obs.calls.find(
    (c) =>
      answeredAt(c) <= call.at &&
      c.seq !== call.seq &&
      !c.injected &&
      ((c.method === 'POST' && c.path === call.path && ((ok2xx(c) && FINAL.includes(c.facts?.status)) || FINAL.includes(c.facts?.previous_status))) ||
        (c.method === 'GET' && c.path === `/orders/${orderId}` && ok2xx(c) && FINAL.includes(c.facts?.status))),
  );
  if (own?.method === 'GET') return `its own read ${callName(own)} showed it ${own.facts?.status}`;
  if (own) return `the answer to ${callName(own)} showed it ${ok2xx(own) && FINAL.includes(own.facts?.status) ? own.facts?.status : own.facts?.previous_status}`;
  const delivery = obs.session.deliveries.find((d) => d.order_id === orderId && FINAL.includes(d.order_status) && d.answered_at !== null && d.answered_at + TOLD_SLACK_MS <= call.at);
  if (delivery) return `its webhook receiver answered 2xx to the ${delivery.event_type} event showing it ${delivery.order_status} ${Math.round((call.at - delivery.answered_at!) / 1000)} s before`;
  return null;
}

/**
 * DESIGN: a task never fails for a move the ERP made before the person could act. The person doing
 * such a task late (the order read before the ERP made it final, the move sent after) makes one
 * refused reject or cancel on the task's order: that is the task pre-empted, not a move on an order
 * the ERP knew final. Only the first refused move on each such order; a second one still counts.
 */
function lateTaskMoves(obs: Observation, calls: RecordedCall[]): Set<RecordedCall> {
  const late = new Set<RecordedCall>();
  for (const t of obs.session.tasks) {
    if (!madeFinalBeforeDone(obs, t)) continue;
    const first = calls.find((c) => orderOf(c) === t.order_id && movesFinal(c) && !ok2xx(c));
    if (first && (first.facts?.status === 'rejected' || first.facts?.status === 'cancelled')) late.add(first);
  }
  return late;
}

/**
 * The first move on an order the ERP had been told is final, as a failure naming the call and how it
 * was told. One refused move on a final order, not repeated, is never a failure by itself.
 */
function moveOnFinal(obs: Observation, calls: RecordedCall[]): CheckOutcome | null {
  const late = lateTaskMoves(obs, calls);
  for (const c of calls.filter(movesFinal)) {
    if (late.has(c)) continue;
    const told = toldFinal(obs, c);
    if (!told) continue;
    const evidence = [callEvidence(`move to ${c.facts?.status} on a ${c.facts?.previous_status} order`, c, false, 'no move on an order known to be final')];
    return fail(`${callName(c)} tried to move order ${orderOf(c)} to ${c.facts?.status} after the ERP had been told it was final (${told})`, evidence);
  }
  return null;
}

/** A refused status call sent again unchanged: 409/422, and the 403 status_authority_denied of the setting. */
const refusedMove = (c: RecordedCall) => refusal(c) || (c.status === 403 && c.code === 'status_authority_denied');

/**
 * DESIGN: order_status_authority service — no reject_order/cancel_order task, no status move
 * expected; only a 403 status_authority_denied sent again unchanged fails, naming the setting.
 */
function underServiceAuthority(obs: Observation, calls: RecordedCall[]): CheckOutcome {
  const repeated = refusedThenRepeated(obs, calls, refusedMove);
  const setting = 'order_status_authority: service';
  if (repeated) {
    const { refused, again } = repeated;
    const evidence = [callEvidence(`refused with ${refused.status} ${refused.code}`, refused, true), callEvidence('sent again unchanged', again, false, 'not repeated: the setting decides')];
    return fail(`${callName(again)} repeated a status move refused with ${refused.status} ${refused.code} (${refused.request_id}) unchanged: under ${setting} the service moves the orders, and a refusal is not retried without fixing its cause`, evidence);
  }
  const evidence: Evidence[] = [{ step: 'status moves', ok: true, expected: `none expected (${setting}: the service moves the orders)`, actual: `${calls.length} status call(s), none refused and sent again` }];
  if (obs.session.orders.length === 0) return waitingForOrders(obs) ?? (expired(obs) ? skip('not graded: the session made no orders (see the notes)', evidence) : pending('waiting for the session\'s orders', evidence));
  return pass(`${setting}: the service moves the orders, no status move was expected, and no refused move was sent again`, evidence);
}

/** Task verdicts that still count: a task re-issued on a new order is replaced by its re-issue. */
function countedTasks(obs: Observation): Task[] {
  const opened = new Map(obs.session.tasks.map((t) => [t.id, t]));
  return gradeTasks(obs).filter((t) => (t.action === 'reject_order' || t.action === 'cancel_order') && !opened.get(t.id)?.reissued_as);
}

/**
 * DESIGN: a task whose order the ERP made final before the person could act is re-issued once; the
 * second time, statuses fails naming the ERP's automatic moves.
 */
function automaticMoves(obs: Observation, tasks: Task[]): CheckOutcome | null {
  const opened = new Map(obs.session.tasks.map((t) => [t.id, t]));
  for (const t of tasks) {
    const again = opened.get(t.id)!;
    if (t.status !== 'failed' || !again.reissue_of) continue;
    const first = opened.get(again.reissue_of)!;
    const moves = [first, again].map((x) => madeFinalBeforeDone(obs, x)).filter((m): m is RecordedCall => m !== null);
    const named = moves.map((m) => `order ${orderOf(m)} to ${m.facts?.status} (${callName(m)})`).join(' and ');
    const evidence = [first, again].map((x) => taskEvidence(gradeTasks(obs).find((g) => g.id === x.id)!));
    return fail(`no person can act on your ERP's orders: it made the orders of ${again.action} final by itself before the person did the task, twice: ${named}`, evidence);
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
    const waiting = waitingForOrders(obs);
    const calls = callsTo(obs, 'POST', '/orders/*/status').filter((c) => !c.injected);
    if (obs.settings.order_status_authority === 'service') return underServiceAuthority(obs, calls);
    const wrong = repeatedRefusal(obs, calls, 'a status move') ?? moveOnFinal(obs, calls);
    if (wrong) return wrong;
    if (waiting) return waiting;
    const evidence: Evidence[] = [];
    const good = calls.filter(ok2xx);
    const step = (label: string, c: RecordedCall | undefined) => evidence.push(stepEvidence(label, c));
    step('accept with estimated minutes', good.find((c) => c.facts?.status === 'accepted' && c.facts.estimated_minutes === true));
    step('an accepted order moved forward (stages may be skipped)', good.find((c) => movesForward(c.facts?.previous_status as string, c.facts?.status as string)));
    const tasks = countedTasks(obs);
    for (const action of ['reject_order', 'cancel_order'] as const) {
      if (!tasks.some((t) => t.action === action)) evidence.push({ step: `task ${action}`, ok: false, expected: 'opened by the session, then done', actual: 'not opened: its order could not be made (see the notes)' });
    }
    evidence.push(...tasks.map(taskEvidence));
    const automatic = automaticMoves(obs, tasks);
    if (automatic) return automatic;
    // A made-final task not re-issued yet: the session re-issues it on a new order.
    const reissuing = tasks.some((t) => t.status === 'failed' && !obs.session.tasks.find((o) => o.id === t.id)?.reissue_of);
    if (evidence.every((e) => e.ok)) return pass('accept with minutes, a forward move, the rejection and the cancellation asked for, and no move on a final order or repeated refusal', evidence);
    const open = tasks.filter((t) => t.status === 'open' || (t.status === 'failed' && reissuing));
    if (!expired(obs)) return missingSteps(obs, evidence);
    if (open.length === 0) return missingSteps(obs, evidence);
    const others = evidence.filter((e) => !e.ok && !e.step.startsWith('task ')).map((e) => e.step);
    return fail(`tasks still open: ${open.map((t) => `${t.id} ${taskName(t)}`).join(', ')}${others.length ? `; missing: ${others.join('; ')}` : ''}`, evidence);
  },
};
