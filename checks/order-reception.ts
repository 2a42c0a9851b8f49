import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import type { RunContext, Scenario } from './context.js';
import { callName, expired, missingSteps, ok2xx, waitingForOrders } from './internal/calls.js';
import { apiMeaning } from './internal/api-meaning.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureMe, ensureReceiver, SCENARIOS, scenarioOf } from './internal/setup.js';
import { RECEPTION_SCENARIOS, type Observation, type RecordedCall, type SessionOrder } from '../src/contract/observation.js';
import { acceptanceProbes, receiverRefusesAll } from './internal/probe-verdicts.js';
import { fail, pass, pending, skip, type CheckOutcome, type Evidence } from './types.js';

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
      return fail(`the simulator refused the ${scenario} order: ${apiMeaning(error)}`, log.items);
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

/** A read that can hand an ERP its orders: the feed, or the order list. */
const orderRead = (c: RecordedCall) => c.method === 'GET' && (c.path === '/events' || c.path === '/orders') && ok2xx(c);

/** A call of the integration about one order (ack, import-failure, a status move), answered or not. */
const actsOn = (c: RecordedCall, orderId: string) => c.method === 'POST' && c.path.startsWith(`/orders/${orderId}/`) && !c.injected;

/**
 * How a session order reached the ERP: its order.created delivery answered 2xx; or a read of the
 * feed (or the order list) after it was made, followed by a call about it (DESIGN: a feed integrator
 * reads its orders from GET /events and acts on them); or a delivery that got no answer at all (the
 * receiver was down, or went down before it answered) followed by a call about it: the ERP had it.
 * A delivery answered non-2xx was refused, whatever the ERP did with it.
 */
function reception(obs: Observation, o: SessionOrder): { ok: boolean; actual: string; refused: boolean } {
  const d = obs.session.deliveries.find((x) => x.order_id === o.order_id && x.event_type === 'order.created');
  if (d?.succeeded_at) return { ok: true, actual: `delivered by webhook (${d.last_response_status ?? '2xx'})`, refused: false };
  const read = obs.calls.find((c) => orderRead(c) && c.at >= o.created_at);
  const readActed = read && obs.calls.find((c) => actsOn(c, o.order_id) && c.at >= read.at);
  if (readActed) return { ok: true, actual: `read with ${callName(read)} and acted on: ${callName(readActed)}`, refused: false };
  const answered = d?.last_response_status ?? null;
  // An attempt still in flight has no answer yet: a receiver that acts before it answers (as one that
  // does the work, then answers 500) is not "down" (issue 27: graded as down under load, it passed).
  if (d?.status === 'delivering') return { ok: false, actual: `its delivery is being sent: waiting for the receiver's answer${answered === null ? '' : ` (the last attempt was answered ${answered})`}`, refused: false };
  const acted = obs.calls.find((c) => actsOn(c, o.order_id) && c.at >= o.created_at);
  if (d && answered === null && acted) return { ok: true, actual: `its delivery got no answer (the receiver was down), and the ERP acted on it: ${callName(acted)}`, refused: false };
  if (answered !== null) return { ok: false, actual: `not received: its delivery was answered ${answered} (not 2xx)`, refused: true };
  if (d) return { ok: false, actual: `not received: its delivery ${d.status === 'failed' || d.status === 'pending' ? 'got no answer' : d.status}`, refused: false };
  return { ok: false, actual: 'not received: no delivery answered 2xx, and no read of the feed was followed by a call about it', refused: false };
}

export const orderReception: Check = {
  id: 'order_reception',
  title: 'Order reception: simulated orders by signed webhook or from the feed',
  area: 'orders',
  mandatory: true,
  rule: 'Events, Webhook delivery and Feed: each order arrives complete, pushed to the signed webhook (answered 2xx within 10 s) or read from GET /events and acted on (an integration without a webhook reads the feed).',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    return ctx.control ? onEmulator(ctx, log) : onRealEnvironment(ctx, log);
  },

  grade(obs) {
    const s = obs.session;
    const waiting = waitingForOrders(obs);
    if (waiting) return waiting;
    const problems = s.problems.filter((p) => RECEPTION_SCENARIOS.some((sc) => p.includes(`the ${sc} order`)));
    if (problems.length) return fail(problems.join('; '), []);
    const scenarioOrders = s.orders.filter((o) => RECEPTION_SCENARIOS.includes(o.scenario));
    const feedOnly = s.webhook === false;
    const evidence: Evidence[] = [];
    const received = scenarioOrders.map((o) => {
      const r = reception(obs, o);
      evidence.push({ step: `${o.scenario} order #${o.number} (${o.order_id})`, ok: r.ok, expected: feedOnly ? 'read from the feed and acted on' : 'delivered by webhook (2xx), or read from the feed and acted on', actual: r.actual });
      return r;
    });
    if (scenarioOrders.length === 0) return expired(obs) ? fail('the session made none of its orders (see the notes)', evidence) : pending('waiting for the session\'s orders', evidence);
    if (received.every((r) => r.ok)) {
      const how = feedOnly ? 'read from the feed and acted on' : 'received by signed webhook (2xx) or from the feed';
      return pass(`the delivery, pickup-with-invoice and unmapped-product orders were ${how}`, evidence);
    }
    // DESIGN: one fault, one check — a receiver that answers non-2xx to every delivery fails here,
    // and the probes it should have accepted are judged here too. Its failure is certain once it
    // refused every order's delivery and those probes (a restarting receiver does not answer at all).
    if (s.finished && received.every((r) => r.refused) && receiverRefusesAll(obs)) {
      for (const p of acceptanceProbes(obs)) evidence.push({ step: `probe: ${p.kind} (a valid delivery)`, ok: false, status: p.status, expected: 'accepted (2xx)', actual: String(p.status) });
      return fail(`your webhook receiver answered non-2xx to every delivery, valid ones included: the session's orders were not received (answer 2xx within 10 s, and queue the work)`, evidence);
    }
    return missingSteps(obs, evidence);
  },
};
