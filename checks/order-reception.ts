import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import type { RunContext, Scenario } from './context.js';
import { callsTo, missingSteps, ok2xx, stepEvidence } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureMe, ensureReceiver, SCENARIOS, scenarioOf } from './internal/setup.js';
import { RECEPTION_SCENARIOS } from '../src/contract/observation.js';
import { fail, pass, skip, type CheckOutcome, type Evidence } from './types.js';

/** Reads the feed from `after` to its end: the order.created events' orders and the cursor to go on from. */
async function feedOrders(ctx: RunContext, log: EvidenceLog, after: string | undefined) {
  const orders: Order[] = [];
  let cursor = after;
  const read = await log.call('GET /events (order.created)', async (o) => {
    for await (const page of ctx.client.events.pages({ types: 'order.created', after: cursor, limit: 200 }, o)) {
      for (const e of page.data) orders.push((e.data as { order: Order }).order);
      cursor = page.next_cursor ?? cursor;
    }
  });
  return { ok: read.ok, error: read.ok ? null : read.error, orders, cursor };
}

async function onEmulator(ctx: RunContext, log: EvidenceLog): Promise<CheckOutcome> {
  const me = await ensureMe(ctx, log);
  if (typeof me === 'string') return fail(me, log.items);
  const receiver = await ensureReceiver(ctx, log);
  if (typeof receiver === 'string') return fail(receiver, log.items);
  const orders: Partial<Record<Scenario, Order>> = {};
  for (const scenario of SCENARIOS) {
    try {
      orders[scenario] = await ctx.control!.simulateOrder({ store_id: me.store.id, scenario });
      log.note(`simulator: ${scenario} order`, true, 'an order', orders[scenario]!.id);
    } catch (error) {
      return fail(`the simulator refused the ${scenario} order: ${(error as Error).message}`, log.items);
    }
  }
  ctx.state.orders = orders;
  const ids = Object.values(orders).map((o) => o.id);
  await ctx.control!.drainWebhooks().catch(() => undefined);
  const arrived = await receiver.waitUntil(() => ids.every((id) => receiver.orders.has(id)), 5000, ctx.signal);
  const got = ids.filter((id) => receiver.orders.has(id)).length;
  log.note('signed webhook deliveries verified', arrived, '3 order.created deliveries with valid signatures', `${got} of 3`);
  const feed = await feedOrders(ctx, log, undefined);
  if (!feed.ok) return fail(`GET /events failed: ${describeError(feed.error!)}`, log.items);
  const inFeed = ids.filter((id) => feed.orders.some((o) => o.id === id)).length;
  log.note('order.created in the feed', inFeed === 3, '3 orders', `${inFeed} of 3`);
  if (!arrived) return fail(`only ${got} of the 3 simulated orders arrived by webhook with a valid signature`, log.items);
  if (inFeed < 3) return fail(`only ${inFeed} of the 3 simulated orders are in the feed`, log.items);
  return pass('the delivery, pickup-with-invoice and unmapped-product orders arrived by signed webhook and in the feed', log.items);
}

/** A real environment: a person creates the orders in the panel; the feed is watched for them. */
async function onRealEnvironment(ctx: RunContext, log: EvidenceLog): Promise<CheckOutcome> {
  if (ctx.mode === 'non_interactive') return skip('needs orders created with the panel\'s simulator; skipped with --non-interactive');
  const start = await feedOrders(ctx, log, undefined);
  if (!start.ok) return fail(`GET /events failed: ${describeError(start.error!)}`, log.items);
  ctx.say('Create three orders with the test environment\'s order simulator in the panel: a delivery order, a pickup order with invoice data, and one with a product without external code.');
  ctx.say(`Waiting up to ${Math.round(ctx.waitMs / 1000)} s for them on the event feed…`);
  const found: Partial<Record<Scenario, Order>> = {};
  let cursor = start.cursor;
  const until = Date.now() + ctx.waitMs;
  while (SCENARIOS.some((s) => !found[s]) && Date.now() < until && !ctx.signal.aborted) {
    await new Promise((r) => setTimeout(r, 2000));
    const page = await feedOrders(ctx, new EvidenceLog(ctx.signal), cursor);
    cursor = page.cursor;
    for (const o of page.orders) {
      const s = scenarioOf(o);
      if (s && !found[s]) (found[s] = o), ctx.say(`  received the ${s} order ${o.id}`);
    }
  }
  ctx.state.orders = found;
  for (const s of SCENARIOS) log.note(`${s} order in the feed`, Boolean(found[s]), 'an order.created event', found[s]?.id ?? 'not seen');
  const missing = SCENARIOS.filter((s) => !found[s]);
  if (missing.length) return fail(`not received before the timeout: ${missing.join(', ')}`, log.items);
  return pass('the three simulated orders arrived in the feed (a real environment cannot reach this machine\'s receiver: webhook delivery not checked)', log.items);
}

export const orderReception: Check = {
  id: 'order_reception',
  title: 'Order reception: simulated orders by signed webhook and in the feed',
  area: 'orders',
  mandatory: true,
  rule: 'Events, Webhook delivery and Feed: each order arrives complete, pushed to the signed webhook (answered 2xx within 10 s) and in GET /events.',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    return ctx.control ? onEmulator(ctx, log) : onRealEnvironment(ctx, log);
  },

  grade(obs) {
    const s = obs.session;
    const evidence: Evidence[] = [];
    const problems = s.problems.filter((p) => p.includes('webhook') || RECEPTION_SCENARIOS.some((sc) => p.includes(`create the ${sc} order`)));
    const scenarioOrders = s.orders.filter((o) => RECEPTION_SCENARIOS.includes(o.scenario));
    for (const o of scenarioOrders) {
      const d = s.deliveries.find((x) => x.order_id === o.order_id && x.event_type === 'order.created');
      evidence.push({ step: `${o.scenario} order ${o.order_id} by webhook`, ok: Boolean(d?.succeeded_at), expected: '2xx from the receiver', actual: d ? `${d.status}${d.last_response_status ? ` (last answer ${d.last_response_status})` : ''}` : 'no delivery yet' });
    }
    const feed = callsTo(obs, 'GET', '/events').filter((c) => ok2xx(c) && c.at >= s.started_at);
    evidence.push(stepEvidence('feed read after the orders were created', feed[0], 'GET /events 2xx'));
    if (problems.length) return fail(problems.join('; '), evidence);
    if (evidence.every((e) => e.ok) && scenarioOrders.length === 3) return pass('the three simulated orders were delivered by signed webhook (2xx) and the feed was read', evidence);
    return missingSteps(obs, evidence);
  },
};
