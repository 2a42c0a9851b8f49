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

const order = (t: OpenedTask) => `order #${t.order_number ?? '?'} (${t.order_id})`;

/** The instruction of a task, in English. */
export function instructionOf(t: OpenedTask): string {
  switch (t.action) {
    case 'reject_order':
      return `Reject ${order(t)} from your ERP with a reason (3 to 255 characters); it is pending and waits for you.`;
    case 'cancel_order':
      return `Accept ${order(t)} from your ERP, then cancel it with a reason (3 to 255 characters).`;
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

type Verdict = Pick<Task, 'status' | 'reason'>;
const open: Verdict = { status: 'open', reason: null };
const done = (why: string, c: RecordedCall): Verdict => ({ status: 'done', reason: `${why}: ${callName(c)}` });
const failed = (why: string, c: RecordedCall): Verdict => ({ status: 'failed', reason: `${why}: ${callName(c)}` });

function rejectOrder(obs: Observation, t: OpenedTask): Verdict {
  const move = moves(obs, t.order_id!)[0];
  if (!move) return open;
  if (move.facts?.status === 'rejected') return done('rejected with a reason', move);
  return failed(`${order(t)} was moved to ${move.facts?.status} instead of rejected while pending`, move);
}

function cancelOrder(obs: Observation, t: OpenedTask): Verdict {
  for (const move of moves(obs, t.order_id!)) {
    const to = move.facts?.status;
    if (to === 'cancelled' && move.facts?.previous_status === 'pending') return failed(`${order(t)} was cancelled while still pending; the task asks to accept it first, then cancel it`, move);
    if (to === 'cancelled') return done(`cancelled with a reason after it was ${move.facts?.previous_status}`, move);
    if (to === 'rejected' || to === 'completed') return failed(`${order(t)} was ${to} instead of accepted and then cancelled`, move);
  }
  return open;
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
  return obs.session.tasks.map((t) => ({
    id: t.id,
    action: t.action,
    ...(t.order_id ? { order_id: t.order_id } : {}),
    ...(t.external_id ? { external_id: t.external_id } : {}),
    instruction: instructionOf(t),
    ...GRADERS[t.action](obs, t),
  }));
}

/** "reject_order (ord_…)": a task named in a check's reason. */
export function taskName(t: Task): string {
  return `${t.action} (${t.order_id ?? t.external_id})`;
}

/** A task as evidence of the check it is graded in: done is ok; the instruction is what was expected. */
export function taskEvidence(t: Task): Evidence {
  return { step: `task ${t.id}: ${taskName(t)}`, ok: t.status === 'done', expected: t.instruction, actual: t.reason ?? 'open' };
}
