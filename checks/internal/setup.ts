import type { Order } from '../../src/contract/orders.js';
import type { MeContext } from '../../src/contract/store.js';
import type { RunContext, Scenario } from '../context.js';
import { randomSecret } from './probes.js';
import { ReferenceReceiver } from './receiver.js';
import { apiMeaning } from './api-meaning.js';
import { describeError, type EvidenceLog } from './evidence.js';
import { SIMULATOR_SCENARIOS } from '../../src/contract/enums.js';

/** GET /me once per run (the connection check usually did it already). */
export async function ensureMe(ctx: RunContext, log: EvidenceLog): Promise<MeContext | string> {
  if (ctx.state.me) return ctx.state.me;
  const me = await log.call('GET /me', (o) => ctx.client.me(o));
  if (!me.ok) return `GET /me failed: ${describeError(me.error)}`;
  return (ctx.state.me = me.value);
}

/**
 * The run's reference receiver. On an emulator it is set as the integration's webhook through the
 * API (PUT /webhook); against a real environment it stays local.
 * A new webhook's secret comes in the 201; an existing one is rotated to learn a secret (the old
 * one keeps signing alongside for its overlap, and one matching signature suffices).
 */
export async function ensureReceiver(ctx: RunContext, log: EvidenceLog): Promise<ReferenceReceiver | string> {
  if (ctx.state.receiver) return ctx.state.receiver;
  if (!ctx.control) {
    // A real environment cannot reach this machine (and wants a public HTTPS URL): its webhook is left
    // alone, and the receiver is checked locally with a secret of its own.
    const local = await new ReferenceReceiver().listen();
    local.secrets = [randomSecret()];
    log.note('reference receiver (local)', true, 'a local receiver with its own secret', local.url);
    return (ctx.state.receiver = local);
  }
  const before = await log.call('GET /webhook (to put it back afterwards)', (o) => ctx.client.webhook.get(o));
  if (before.ok) ctx.state.previousWebhook = { url: before.value.url, events: [...before.value.events], active: before.value.active ?? true };
  else if (before.error.code === 'not_found') {
    ctx.state.previousWebhook = null;
    log.judge(true, 'a webhook or 404', '404: none configured');
  } else return `GET /webhook failed: ${describeError(before.error)}`;
  const receiver = await new ReferenceReceiver().listen();
  ctx.state.receiver = receiver;
  const put = await log.call('PUT /webhook (reference receiver)', (o) => ctx.client.webhook.put({ url: receiver.url, events: ['*'], active: true }, o));
  if (!put.ok) return `PUT /webhook failed: ${describeError(put.error)}`;
  let secret = put.value.signing_secret;
  if (!secret) {
    const rotated = await log.call('POST /webhook/rotate-secret', (o) => ctx.client.webhook.rotateSecret(o));
    if (!rotated.ok) return `POST /webhook/rotate-secret failed: ${describeError(rotated.error)}`;
    secret = rotated.value.signing_secret;
  }
  receiver.secrets = [secret];
  return receiver;
}

/** Which simulator scenario an order looks like (real environments: orders a person created). */
export function scenarioOf(o: Order): Scenario | null {
  if (o.items.some((i) => i.product.external_id === null)) return 'unmapped_product';
  if (o.fulfillment_type === 'pickup' && o.customer.billing) return 'pickup_invoice';
  if (o.fulfillment_type === 'delivery') return 'delivery';
  return null;
}

export const SCENARIOS: readonly Scenario[] = SIMULATOR_SCENARIOS;

/** The three scenario orders: those received earlier in the run, or new ones from the emulator's simulator. */
export async function ensureOrders(ctx: RunContext, log: EvidenceLog): Promise<Record<Scenario, Order> | string> {
  const have = ctx.state.orders ?? {};
  if (SCENARIOS.every((s) => have[s])) return have as Record<Scenario, Order>;
  if (!ctx.control) return 'no orders received (order_reception did not get the three simulated orders)';
  const me = await ensureMe(ctx, log);
  if (typeof me === 'string') return me;
  const orders: Partial<Record<Scenario, Order>> = { ...have };
  for (const scenario of SCENARIOS.filter((s) => !have[s])) {
    try {
      orders[scenario] = await ctx.control.simulateOrder({ store_id: me.store.id, scenario });
    } catch (error) {
      return `the simulator refused the ${scenario} order: ${apiMeaning(error)}`;
    }
  }
  ctx.state.orders = orders;
  return orders as Record<Scenario, Order>;
}
