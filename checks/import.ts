import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callEvidence, callsTo, missingSteps, ok2xx, orderOf, repeatedAfter, stepEvidence } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureOrders } from './internal/setup.js';
import type { RecordedCall } from './observation.js';
import { fail, pass, type Evidence } from './types.js';

export const importCheck: Check = {
  id: 'import',
  title: 'Import: ack, repeated ack, import-failure, ack after failure, external_id_conflict',
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
    log.judge(conflictOk, '409 external_id_conflict, not retried', conflict.ok ? 'accepted' : `${describeError(conflict.error)} after ${conflict.answers.length} attempt(s)`);
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
    const acks = callsTo(obs, 'POST', '/orders/*/ack').filter((c) => !c.injected);
    const failures = callsTo(obs, 'POST', '/orders/*/import-failure').filter((c) => !c.injected && ok2xx(c));
    const good = acks.filter(ok2xx);
    const evidence: Evidence[] = [];
    const step = (label: string, c: RecordedCall | undefined) => evidence.push(stepEvidence(label, c));
    step('ack', good[0]);
    const repeated = good.find((a) => good.some((b) => b.seq > a.seq && orderOf(b) === orderOf(a) && b.facts?.external_id === a.facts?.external_id));
    step('repeated ack with the same code', repeated && good.find((b) => b.seq > repeated.seq && orderOf(b) === orderOf(repeated)));
    const unmapped = failures.find((f) => f.facts?.code === 'unmapped_product') ?? failures[0];
    step('import-failure', unmapped);
    step('ack after the failure', unmapped && good.find((a) => a.seq > unmapped.seq && orderOf(a) === orderOf(unmapped)));
    const conflicts = acks.filter((c) => c.code === 'external_id_conflict');
    const retried = conflicts.find((c) => repeatedAfter(obs, c));
    if (retried) {
      evidence.push(callEvidence('409 external_id_conflict', retried, false, '409, not repeated'));
      return fail('a 409 external_id_conflict was sent again: a 4xx is never repeated without fixing the cause', evidence);
    }
    const otherRetried = acks.find((c) => c.status >= 400 && c.status < 500 && c.status !== 429 && repeatedAfter(obs, c));
    if (otherRetried) {
      evidence.push(callEvidence(`ack answered ${otherRetried.status} ${otherRetried.code}`, otherRetried, false, 'not repeated'));
      return fail(`an ack answered ${otherRetried.status} ${otherRetried.code ?? ''} was sent again unchanged`, evidence);
    }
    const conflict = conflicts[0];
    if (conflict) evidence.push(callEvidence('409 external_id_conflict understood', conflict, true, '409 external_id_conflict, not repeated'));
    else evidence.push({ step: '409 external_id_conflict understood', ok: false, expected: 'an ack with another code answered 409, not repeated', actual: 'not seen yet' });
    if (evidence.every((e) => e.ok)) return pass('ack, repeated ack, import-failure, ack after failure and a 409 external_id_conflict not repeated', evidence);
    return missingSteps(obs, evidence);
  },
};
