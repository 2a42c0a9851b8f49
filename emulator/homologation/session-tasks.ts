import type { EnvContext } from '../context.js';
import type { Observation, RecordedCall, SessionView } from '../../src/contract/observation.js';
import { availabilityChanged } from '../../checks/internal/catalog-steps.js';
import { callName } from '../../checks/internal/calls.js';
import { madeFinalBeforeDone } from '../../checks/tasks.js';
import { makeTaskOrder } from './session-orders.js';

/** What opening the conditional tasks needs to know of one session. */
export interface TaskContext {
  env: EnvContext;
  storeId: string;
  integrationId: string;
  view: SessionView;
  calls: RecordedCall[];
  nextTaskId(): string;
}

/**
 * DESIGN: mark_unavailable is opened only when the ERP changed no availability on its own, and
 * names a product the ERP published (opened as soon as there is one).
 */
async function openMarkUnavailable(t: TaskContext): Promise<void> {
  if (t.view.tasks.some((x) => x.action === 'mark_unavailable')) return;
  if (availabilityChanged({ calls: t.calls })) return;
  const product = await t.env.store.catalog.firstPublishedProduct(t.storeId, t.integrationId);
  if (!product) return;
  // Another look may have opened it while this one read the catalog.
  if (t.view.tasks.some((x) => x.action === 'mark_unavailable')) return;
  t.view.tasks.push({ id: t.nextTaskId(), action: 'mark_unavailable', external_id: product.externalId, product_name: product.name, opened_at: Date.now() });
}

/**
 * An import_after_failure task for each session order the ERP reported with a successful
 * import-failure. DESIGN: no two tasks name one order — an order another task is about is left out.
 */
function openImportAfterFailure(t: TaskContext): void {
  for (const order of t.view.orders) {
    if (t.view.tasks.some((x) => x.order_id === order.order_id)) continue;
    const path = `/orders/${order.order_id}/import-failure`;
    const failure = t.calls.find((c) => c.method === 'POST' && c.path === path && !c.injected && c.status >= 200 && c.status < 300);
    if (!failure) continue;
    t.view.tasks.push({ id: t.nextTaskId(), action: 'import_after_failure', order_id: order.order_id, order_number: order.number, opened_at: failure.at });
  }
}

/** Opens the tasks that depend on what the ERP did so far (called on each look at the session). */
export async function openConditionalTasks(t: TaskContext): Promise<void> {
  await openMarkUnavailable(t);
  openImportAfterFailure(t);
}

/**
 * DESIGN: Tasks and an ERP's own automation — a reject_order or cancel_order task whose order was
 * made final before the person did it is re-issued once, on a new order, with an instruction that
 * says what happened. A re-issue is never re-issued again (statuses then names the moves).
 */
export async function reissueTasks(env: EnvContext, obs: Observation, view: SessionView, storeId: string, integrationId: string, nextTaskId: () => string, tried: Set<string>): Promise<void> {
  for (const task of [...view.tasks]) {
    if ((task.action !== 'reject_order' && task.action !== 'cancel_order') || task.reissue_of || task.reissued_as || tried.has(task.id)) continue;
    const move = madeFinalBeforeDone(obs, task);
    if (!move) continue;
    const what = move.facts?.status === 'cancelled' ? 'cancelled while still pending' : String(move.facts?.status);
    const context = `Order #${task.order_number} (${task.order_id}) was ${what} by ${callName(move)} before the task was done (if your ERP does that by itself, no person can act on its orders)`;
    // Once: when its order cannot be made, the problem is noted and the task stays as it is.
    tried.add(task.id);
    const again = await makeTaskOrder(env, view, storeId, integrationId, task.action, nextTaskId, { reissue_of: task.id, context });
    if (again) task.reissued_as = again.id;
  }
}
