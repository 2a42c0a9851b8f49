import type { EnvContext } from '../context.js';
import { simulateOrder } from '../orders/simulator.js';
import { changeStatus } from '../orders/commands.js';
import type { SimulateOrderRequest } from '../../src/contract/orders.js';
import type { OpenedTask, SessionOrder, SessionScenario, SessionView } from '../../src/contract/observation.js';

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

/**
 * The orders of the person's tasks: pickup orders, the kind an ERP usually leaves to the counter
 * staff (an ERP that accepts every order on arrival cannot leave one pending to be rejected).
 */
const TASKS: { action: 'reject_order' | 'cancel_order'; notes: string }[] = [
  { action: 'reject_order', notes: 'homologation task: reject this order' },
  { action: 'cancel_order', notes: 'homologation task: accept, then cancel this order' },
];

/** One session order from the simulator (with `productId` when given, except the unmapped one), or null with the problem noted. */
async function make(env: EnvContext, view: SessionView, storeId: string, productId: string | undefined, kind: Kind): Promise<SessionOrder | null> {
  const { scenario, simulate, notes } = kind;
  const items = productId && simulate !== 'unmapped_product' ? [{ product_id: productId, quantity: 1, options: [] }] : undefined;
  try {
    const order = await simulateOrder(env, { store_id: storeId, scenario: simulate, notes, items });
    const made = { scenario, order_id: order.id, number: order.number };
    view.orders.push(made);
    return made;
  } catch (error) {
    view.problems.push(`the order simulator could not create the ${scenario} order: ${(error as Error).message}`);
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
    view.problems.push(`situation not arranged (${order.scenario}, order #${order.number}): ${(error as Error).message}`);
  }
}

/** The session's orders, its arranged situations and the tasks on its own orders, in that order. */
export async function createSessionOrders(env: EnvContext, view: SessionView, storeId: string, integrationId: string, nextTaskId: () => string): Promise<void> {
  const productId = await env.store.catalog.importableProduct(storeId, integrationId);
  for (const kind of KINDS) {
    const order = await make(env, view, storeId, productId, kind);
    if (order && (kind.scenario === 'customer_cancels' || kind.scenario === 'panel_accepts')) await arrange(env, view, order);
  }
  for (const task of TASKS) {
    const order = await make(env, view, storeId, productId, { scenario: 'task', simulate: 'pickup_invoice', notes: task.notes });
    if (!order) continue;
    const opened: OpenedTask = { id: nextTaskId(), action: task.action, order_id: order.order_id, order_number: order.number, opened_at: Date.now() };
    view.tasks.push(opened);
  }
}
