import type { Check } from './check.js';
import type { RunContext } from './context.js';
import { expired, waitingForOrders } from './internal/calls.js';
import { describeError, EvidenceLog } from './internal/evidence.js';
import { ensureOrders } from './internal/setup.js';
import { gradeTasks, taskEvidence, taskName } from './tasks.js';
import { fail, pass, pending, skip, type CheckOutcome, type Evidence } from './types.js';

/**
 * The reference integrator on the order with a product without external code: reported with
 * import-failure (the import check usually did it), then resolved and acknowledged.
 */
async function recover(ctx: RunContext): Promise<CheckOutcome> {
  const log = new EvidenceLog(ctx.signal);
  const orders = await ensureOrders(ctx, log);
  if (typeof orders === 'string') return fail(orders, log.items);
  const id = orders.unmapped_product.id;
  const read = await log.call('GET the order reported with import-failure', (o) => ctx.client.orders.get(id, o));
  if (!read.ok) return fail(`GET /orders/{id} failed: ${describeError(read.error)}`, log.items);
  let order = read.value;
  if (order.integration.ack_status === 'pending') {
    const failure = await log.call('import-failure (unmapped product)', (o) =>
      ctx.client.orders.importFailure(id, { code: 'unmapped_product', message: 'A product has no external code in the ERP.', retryable: true }, o),
    );
    if (!failure.ok) return fail(`import-failure failed: ${describeError(failure.error)}`, log.items);
    order = failure.value;
  }
  if (order.integration.ack_status === 'failed') {
    const ack = await log.call('ack after the failure', (o) => ctx.client.orders.ack(id, { external_id: `mkh-${ctx.runId}-C` }, o));
    if (!ack.ok) return fail(`ack after an import-failure failed: ${describeError(ack.error)}`, log.items);
    order = ack.value;
  }
  const recovered = order.integration.ack_status === 'acknowledged' && order.integration.last_import_error !== null;
  log.note('acknowledged after a reported failure', recovered, 'ack_status acknowledged, last_import_error kept', `${order.integration.ack_status}, last_import_error ${order.integration.last_import_error ? 'kept' : 'absent'}`);
  if (!recovered) return fail('the order reported with import-failure was not acknowledged afterwards', log.items);
  return pass('the order reported with import-failure was resolved and acknowledged', log.items);
}

/** Optional (DESIGN: Tasks): an order reported with import-failure is resolved later and confirmed with ack. */
export const importRecovery: Check = {
  id: 'import_recovery',
  title: 'Import recovery: an order reported with import-failure, resolved and acknowledged',
  area: 'orders',
  mandatory: false,
  rule: 'Import confirmation: after a reported failure the system may import later and send ack normally (graded from the import_after_failure task; optional, never blocks the certificate).',

  run: recover,

  grade(obs) {
    const waiting = waitingForOrders(obs);
    if (waiting) return waiting;
    const tasks = gradeTasks(obs).filter((t) => t.action === 'import_after_failure');
    const evidence: Evidence[] = tasks.map(taskEvidence);
    const failed = tasks.find((t) => t.status === 'failed');
    if (failed) return fail(`task ${failed.id} (import_after_failure) was done wrongly: ${failed.reason}`, evidence);
    const open = tasks.filter((t) => t.status === 'open');
    if (tasks.length > 0 && open.length === 0) return pass(`every order reported with import-failure was resolved and acknowledged (${tasks.length})`, evidence);
    if (tasks.length === 0) {
      return expired(obs) ? skip('no order of the session was reported with import-failure: nothing to recover') : pending('waiting for an order reported with import-failure', evidence);
    }
    const names = open.map((t) => `${t.id} ${taskName(t)}`).join(', ');
    return expired(obs) ? fail(`tasks still open: ${names}`, evidence) : pending(`waiting for: ${names}`, evidence);
  },
};
