import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callsTo, missingSteps, ok2xx, repeatedRefusal, stepEvidence, waitingForOrders } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureOrders } from './internal/setup.js';
import { fail, pass, type Evidence } from './types.js';
import { plural } from '../src/text/plural.js';

export const importCheck: Check = {
  id: 'import',
  title: 'Import: ack, import-failure, refusals understood',
  area: 'orders',
  mandatory: true,
  rule: 'Import confirmation: ack sets acknowledged; repeating it with the same external_id succeeds with no effect, with another code is 409 external_id_conflict (a 4xx is never repeated); an order with a product without external code is reported with import-failure and may be acknowledged later.',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    const orders = await ensureOrders(ctx, log);
    if (typeof orders === 'string') return fail(orders, log.items);
    const code = (s: string) => `mkh-${ctx.runId}-${s}`;
    const ackStatus = (o: Order) => o.integration.ack_status;
    const d = orders.delivery.id;
    const first = await log.call('ack', (o) => ctx.client.orders.ack(d, { external_id: code('A'), external_number: '1001' }, o));
    if (!first.ok) return fail(`ack failed: ${describeError(first.error)}`, log.items);
    if (!log.judge(ackStatus(first.value) === 'acknowledged', 'ack_status acknowledged', ackStatus(first.value))) return fail('ack did not acknowledge the order', log.items);
    const again = await log.call('ack again with the same code', (o) => ctx.client.orders.ack(d, { external_id: code('A'), external_number: '1001' }, o));
    if (!again.ok) return fail(`a repeated ack with the same code failed: ${describeError(again.error)}`, log.items);
    const conflict = await log.call('ack with another code', (o) => ctx.client.orders.ack(d, { external_id: code('B') }, o));
    const conflictOk = !conflict.ok && conflict.error.code === 'external_id_conflict' && conflict.answers.length === 1;
    log.judge(conflictOk, '409 external_id_conflict, not retried', conflict.ok ? 'accepted' : `${describeError(conflict.error)} after ${plural(conflict.answers.length, 'attempt')}`);
    if (!conflictOk) return fail('an ack with another code was not answered 409 external_id_conflict once', log.items);
    const u = orders.unmapped_product.id;
    const failure = await log.call('import-failure (unmapped product)', (o) =>
      ctx.client.orders.importFailure(u, { code: 'unmapped_product', message: 'A product has no external code in the ERP.', retryable: true }, o),
    );
    if (!failure.ok) return fail(`import-failure failed: ${describeError(failure.error)}`, log.items);
    if (!log.judge(ackStatus(failure.value) === 'failed', 'ack_status failed', ackStatus(failure.value))) return fail('import-failure did not mark the order failed', log.items);
    const later = await log.call('ack after the failure', (o) => ctx.client.orders.ack(u, { external_id: code('C') }, o));
    if (!later.ok) return fail(`ack after an import-failure failed: ${describeError(later.error)}`, log.items);
    if (!log.judge(ackStatus(later.value) === 'acknowledged', 'ack_status acknowledged', ackStatus(later.value))) return fail('ack after a failure did not acknowledge the order', log.items);
    const pickup = await log.call('ack (pickup order)', (o) => ctx.client.orders.ack(orders.pickup_invoice.id, { external_id: code('D') }, o));
    if (!pickup.ok) return fail(`ack failed: ${describeError(pickup.error)}`, log.items);
    return pass('ack, repeated ack, 409 external_id_conflict (not retried), import-failure and ack after it all behaved as the spec says', log.items);
  },

  grade(obs) {
    const calls = [...callsTo(obs, 'POST', '/orders/*/ack'), ...callsTo(obs, 'POST', '/orders/*/import-failure')].filter((c) => !c.injected);
    const wrong = repeatedRefusal(obs, calls, 'an import call');
    if (wrong) return wrong;
    const waiting = waitingForOrders(obs);
    if (waiting) return waiting;
    const evidence: Evidence[] = [];
    const good = calls.filter(ok2xx);
    const failures = good.filter((c) => c.path.endsWith('/import-failure'));
    evidence.push(stepEvidence('ack', good.find((c) => c.path.endsWith('/ack'))));
    evidence.push(stepEvidence('import-failure (an order the ERP cannot import)', failures.find((f) => f.facts?.code === 'unmapped_product') ?? failures[0]));
    if (evidence.every((e) => e.ok)) return pass('orders acknowledged, the unimportable one reported with import-failure, no refused call repeated', evidence);
    return missingSteps(obs, evidence);
  },
};
