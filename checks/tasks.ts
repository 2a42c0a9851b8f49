import { callName, ok2xx } from './internal/calls.js';
import { availabilityChanged, markedSoldOut, removedFromMenu } from './internal/catalog-steps.js';
import type { Observation, OpenedTask, RecordedCall, TaskAction } from '../src/contract/observation.js';
import type { Evidence } from './types.js';

// DESIGN: Tasks — what a person does. The session opens them (and makes their orders); whether each
// is open, done or failed is graded here, from the integration's calls, like the checks.

export type TaskStatus = 'open' | 'done' | 'failed';

/** A task as the report publishes it (JSON, terminal, panel, GET /_emulator/homologation/{id}). */
export interface Task {
  id: string;
  action: TaskAction;
  order_id?: string;
  external_id?: string;
  /** What to do, in English, naming the order by its number and id (or the product by its code). */
  instruction: string;
  status: TaskStatus;
  /** Why it is done or failed, naming the call; null while open. */
  reason: string | null;
}

const order = (t: Pick<OpenedTask, 'order_number' | 'order_id'>) => `order #${t.order_number ?? '?'} (${t.order_id})`;

/** What happened to the order of the task this one replaces, said first in its instruction. */
const context = (t: OpenedTask) => (t.context ? `${t.context}. Here is another one: ` : '');

/**
 * The instruction of a task, in English. DESIGN: a reject_order task says "before your ERP accepts
 * it"; once the ERP accepted its order by itself (`accepted`), the task is done by cancelling it.
 */
export function instructionOf(t: OpenedTask, accepted = false): string {
  switch (t.action) {
    case 'reject_order':
      if (accepted) return `Your ERP accepted ${order(t)} by itself: cancel it from your ERP with a reason (3 to 255 characters).`;
      return `${context(t)}Reject ${order(t)} from your ERP with a reason (3 to 255 characters) before your ERP accepts it; it is pending and waits for you.`;
    case 'cancel_order':
      return `${context(t)}Accept ${order(t)} from your ERP (unless your ERP accepted it already), then cancel it with a reason (3 to 255 characters), before your ERP completes it.`;
    case 'mark_unavailable':
      return `Mark product ${t.product_name ? `"${t.product_name}" ` : ''}(external_id ${t.external_id}) sold out from your ERP (available: false).`;
    case 'import_after_failure':
      return `Resolve ${order(t)}, which your ERP reported with import-failure (for example map its product to a generic one), then confirm it with ack.`;
  }
}

/** The integration's successful status changes of one order (a move to its own state changes nothing), oldest first. */
function moves(obs: Observation, orderId: string): RecordedCall[] {
  const path = `/orders/${orderId}/status`;
  return obs.calls.filter((c) => c.method === 'POST' && c.path === path && !c.injected && ok2xx(c) && c.facts?.status !== c.facts?.previous_status);
}

type Verdict = Pick<Task, 'status' | 'reason'> & { instruction?: string };
const open: Verdict = { status: 'open', reason: null };
const done = (why: string, c: RecordedCall): Verdict => ({ status: 'done', reason: `${why}: ${callName(c)}` });
const failed = (why: string, c: RecordedCall): Verdict => ({ status: 'failed', reason: `${why}: ${callName(c)}` });

const FINAL = ['completed', 'rejected', 'cancelled'];

/**
 * DESIGN: Tasks and an ERP's own automation — the move that made a reject_order or cancel_order
 * task's order final other than as the task asks (completed; rejected, or cancelled while pending,
 * for cancel_order; cancelled while pending for reject_order). No person is blamed for it: the task
 * is re-issued once on a new order (the session does it), and only the re-issued task fails.
 */
export function madeFinalBeforeDone(obs: Observation, t: OpenedTask): RecordedCall | null {
  if (t.action !== 'reject_order' && t.action !== 'cancel_order') return null;
  const history = moves(obs, t.order_id!);
  const final = history.find((m) => FINAL.includes(m.facts?.status as string));
  if (!final) return null;
  const to = final.facts?.status;
  const wasPending = final.facts?.previous_status === 'pending';
  if (t.action === 'reject_order') return to === 'rejected' || (to === 'cancelled' && !wasPending) ? null : final;
  return to === 'cancelled' && !wasPending ? null : final;
}

/** How a made-final task reads: what happened, and where the person goes on. */
function madeFinal(t: OpenedTask, m: RecordedCall): Verdict {
  const what = `${order(t)} was ${m.facts?.status === 'cancelled' ? 'cancelled while still pending' : m.facts?.status} before the task was done`;
  const next = t.reissued_as ? `; re-issued as ${t.reissued_as}` : t.reissue_of ? '' : '; the session re-issues it on a new order';
  return { status: 'failed', reason: `${what}${next}: ${callName(m)}` };
}

function rejectOrder(obs: Observation, t: OpenedTask): Verdict {
  const history = moves(obs, t.order_id!);
  const final = madeFinalBeforeDone(obs, t);
  if (final) return madeFinal(t, final);
  const end = history.find((m) => FINAL.includes(m.facts?.status as string));
  if (end?.facts?.status === 'rejected') return done('rejected with a reason', end);
  const accepted = history.some((m) => m.facts?.previous_status === 'pending');
  if (end) return { ...done(`cancelled with a reason after your ERP accepted it (${end.facts?.previous_status})`, end), instruction: instructionOf(t, true) };
  return accepted ? { ...open, instruction: instructionOf(t, true) } : open;
}

function cancelOrder(obs: Observation, t: OpenedTask): Verdict {
  const final = madeFinalBeforeDone(obs, t);
  if (final) return madeFinal(t, final);
  const end = moves(obs, t.order_id!).find((m) => m.facts?.status === 'cancelled');
  return end ? done(`cancelled with a reason after it was ${end.facts?.previous_status}`, end) : open;
}

function markUnavailable(obs: Observation, t: OpenedTask): Verdict {
  const removed = removedFromMenu(obs, t.external_id!, t.opened_at);
  if (removed) return failed(`product ${t.external_id} was removed from the menu instead of marked sold out (available: false)`, removed);
  const soldOut = markedSoldOut(obs, t.external_id!, t.opened_at);
  if (soldOut) return done('marked sold out', soldOut);
  // The task only stands in for an availability change the ERP had not shown; one made since does as well.
  const own = availabilityChanged(obs, t.opened_at);
  return own ? done('not needed any more, the ERP changed an availability itself', own) : open;
}

function importAfterFailure(obs: Observation, t: OpenedTask): Verdict {
  const path = `/orders/${t.order_id}/ack`;
  const ack = obs.calls.find((c) => c.method === 'POST' && c.path === path && !c.injected && ok2xx(c) && c.at >= t.opened_at);
  const ended = moves(obs, t.order_id!).find((m) => (m.facts?.status === 'rejected' || m.facts?.status === 'cancelled') && (!ack || m.seq < ack.seq));
  if (ended) return failed(`${order(t)} was ${ended.facts?.status} instead of resolved and acknowledged`, ended);
  return ack ? done('acknowledged after the import failure', ack) : open;
}

const GRADERS: Record<TaskAction, (obs: Observation, t: OpenedTask) => Verdict> = {
  reject_order: rejectOrder,
  cancel_order: cancelOrder,
  mark_unavailable: markUnavailable,
  import_after_failure: importAfterFailure,
};

/**
 * Every task the session opened, with its state graded from the calls (pure).
 * @example
 * gradeTasks(observation).filter((t) => t.status === 'open').map((t) => t.instruction)
 */
export function gradeTasks(obs: Observation): Task[] {
  // Fields in DESIGN's order: id, action, order_id | external_id, instruction, status (then reason).
  return obs.session.tasks.map((t) => {
    const { instruction, ...verdict } = GRADERS[t.action](obs, t);
    return {
      id: t.id,
      action: t.action,
      ...(t.order_id ? { order_id: t.order_id } : {}),
      ...(t.external_id ? { external_id: t.external_id } : {}),
      instruction: instruction ?? instructionOf(t),
      ...verdict,
    };
  });
}

/** "reject_order (ord_…)": a task named in a check's reason. */
export function taskName(t: Task): string {
  return `${t.action} (${t.order_id ?? t.external_id})`;
}

/** A task as evidence of the check it is graded in: done is ok; the instruction is what was expected. */
export function taskEvidence(t: Task): Evidence {
  return { step: `task ${t.id}: ${taskName(t)}`, ok: t.status === 'done', expected: t.instruction, actual: t.reason ?? 'open' };
}
