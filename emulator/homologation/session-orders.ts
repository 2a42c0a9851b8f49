import type { EnvContext } from '../context.js';
import { simulateOrder } from '../orders/simulator.js';
import { changeStatus } from '../orders/commands.js';
import type { SimulatedItem, SimulateOrderRequest } from '../../src/contract/orders.js';
import type { OpenedTask, SessionOrder, SessionScenario, SessionView } from '../../src/contract/observation.js';
import { apiMeaning } from '../../checks/internal/api-meaning.js';
import { erpItem } from './session-items.js';

/** What the simulator makes for each kind of session order, and the notes it carries. */
interface Kind {
  scenario: SessionScenario;
  simulate: SimulateOrderRequest['scenario'];
  notes: string;
}

const KINDS: Kind[] = [
  { scenario: 'delivery', simulate: 'delivery', notes: 'homologation delivery order' },
  { scenario: 'pickup_invoice', simulate: 'pickup_invoice', notes: 'homologation pickup_invoice order' },
  { scenario: 'unmapped_product', simulate: 'unmapped_product', notes: 'homologation unmapped_product order' },
  // A pickup order: receivers and ERPs act on it as little as possible, so the duplicate and
  // out-of-order probes judge only what they send.
  { scenario: 'probe', simulate: 'pickup_invoice', notes: 'homologation probe order' },
  { scenario: 'customer_cancels', simulate: 'delivery', notes: 'homologation order the customer cancels' },
  { scenario: 'panel_accepts', simulate: 'delivery', notes: 'homologation order the merchant accepts in the panel' },
];

export type StatusTaskAction = 'reject_order' | 'cancel_order';

/**
 * The orders of the person's tasks: pickup orders, the kind an ERP usually leaves to the counter
 * staff (an ERP that accepts every order on arrival gets its reject_order task changed into a
 * cancellation; one that finishes them by itself gets them re-issued once).
 */
const TASK_NOTES: Record<StatusTaskAction, string> = {
  reject_order: 'homologation task: reject this order',
  cancel_order: 'homologation task: accept, then cancel this order',
};

/**
 * One session order from the simulator, or null with the problem noted in English. DESIGN: every
 * order carries only the ERP's product (`item`); the unmapped one adds the session's product
 * without a code (the simulator makes one when the store has none).
 */
async function make(env: EnvContext, view: SessionView, storeId: string, item: SimulatedItem | null, kind: Kind): Promise<SessionOrder | null> {
  const { scenario, simulate, notes } = kind;
  try {
    const order = await simulateOrder(env, { store_id: storeId, scenario: simulate, notes, items: item ? [item] : undefined });
    const made = { scenario, order_id: order.id, number: order.number, created_at: Date.now() };
    view.orders.push(made);
    return made;
  } catch (error) {
    view.problems.push(`the ${scenario === 'task' ? 'task' : scenario} order could not be made: ${apiMeaning(error)}`);
    return null;
  }
}

/**
 * DESIGN: the session arranges situations instead of demanding misbehaviour — the customer cancels
 * one of its pending orders, the merchant accepts one in the panel — so that a wrong reaction (a
 * move on an order the ERP was told is final) can show. Done as the orders are made: the ERP sees
 * the order and then the change, as it would in a shop.
 */
async function arrange(env: EnvContext, view: SessionView, order: SessionOrder): Promise<void> {
  const change =
    order.scenario === 'customer_cancels'
      ? { by: 'customer' as const, body: { status: 'cancelled' as const, reason: 'The customer changed their mind (homologation)' } }
      : { by: 'store_user' as const, body: { status: 'accepted' as const, estimated_minutes: 20 } };
  try {
    await changeStatus(env, order.order_id, null, { type: change.by, integrationId: null }, change.body);
  } catch (error) {
    view.problems.push(`situation not arranged (${order.scenario}, order #${order.number}): ${apiMeaning(error)}`);
  }
}

/** A task's order and the task on it (`more`: a re-issue's link and what happened to the first order). */
export async function makeTaskOrder(env: EnvContext, view: SessionView, storeId: string, integrationId: string, action: StatusTaskAction, nextTaskId: () => string, more: Partial<OpenedTask> = {}): Promise<OpenedTask | null> {
  const item = await erpItem(env, storeId, integrationId);
  const order = await make(env, view, storeId, item, { scenario: 'task', simulate: 'pickup_invoice', notes: TASK_NOTES[action] });
  if (!order) return null;
  const task: OpenedTask = { id: nextTaskId(), action, order_id: order.order_id, order_number: order.number, opened_at: Date.now(), ...more };
  view.tasks.push(task);
  return task;
}

/**
 * The session's orders, its arranged situations and the tasks on its own orders, in that order.
 * DESIGN: under `order_status_authority: service` no reject_order/cancel_order task is published.
 */
export async function createSessionOrders(env: EnvContext, view: SessionView, storeId: string, integrationId: string, nextTaskId: () => string, options: { tasks: boolean }): Promise<void> {
  const item = await erpItem(env, storeId, integrationId);
  for (const kind of KINDS) {
    const order = await make(env, view, storeId, item, kind);
    if (order && (kind.scenario === 'customer_cancels' || kind.scenario === 'panel_accepts')) await arrange(env, view, order);
  }
  if (!options.tasks) return;
  for (const action of ['reject_order', 'cancel_order'] as const) await makeTaskOrder(env, view, storeId, integrationId, action, nextTaskId);
}

/** One more order for the ERP to work on, so that a fault armed again meets its next write (DESIGN: retry timing). */
export async function makeSampleOrder(env: EnvContext, view: SessionView, storeId: string, integrationId: string): Promise<void> {
  await make(env, view, storeId, await erpItem(env, storeId, integrationId), { scenario: 'retry_sample', simulate: 'delivery', notes: 'homologation order: a retry measured again' });
}
