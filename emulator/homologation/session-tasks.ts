import type { EnvContext } from '../context.js';
import type { RecordedCall, SessionView } from '../../src/contract/observation.js';
import { availabilityChanged } from '../../checks/internal/catalog-steps.js';

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

/** An import_after_failure task for each session order the ERP reported with a successful import-failure. */
function openImportAfterFailure(t: TaskContext): void {
  for (const order of t.view.orders) {
    if (t.view.tasks.some((x) => x.action === 'import_after_failure' && x.order_id === order.order_id)) continue;
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
