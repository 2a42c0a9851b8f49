import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { homologationService } from '../../emulator/homologation/observer-state.js';
import type { HomologationReport } from '../../checks/report.js';

// The observed session over HTTP: the orders it makes, the situations it arranges, the tasks it opens.

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** An emulator whose test store has the ERP's menu: a category and two products (one needs no option). */
async function withMenu(): Promise<TestEmulator> {
  const e = await startTestEmulator();
  await e.api('PUT', '/catalog/categories/erp-cat', { body: { name: 'Menu' } });
  await e.api('PUT', '/catalog/products/erp-a', { body: { name: 'Burger A', category_external_id: 'erp-cat', price: '30000' } });
  await e.api('PUT', '/catalog/products/erp-b', { body: { name: 'Burger B', category_external_id: 'erp-cat', price: '32000' } });
  return e;
}

const start = async (e: TestEmulator) => (await e.control<{ data: HomologationReport }>('POST', `/homologation/${e.test.integration_id}/start`, { timeout_seconds: 60 })).body.data;
const report = async (e: TestEmulator) => (await e.control<{ data: HomologationReport }>('GET', `/homologation/${e.test.integration_id}`)).body.data;
const session = (e: TestEmulator) => homologationService(e.running.emulator).sessions.get(e.test.integration_id)!;
const order = async (e: TestEmulator, id: string) => (await e.control('GET', `/orders/${id}`)).body.data;

describe('observed session: its orders, situations and tasks', () => {
  it('publishes reject_order and cancel_order on pending pickup orders of its own, named by number and id', async () => {
    emu = await withMenu();
    const started = await start(emu);
    expect(started.tasks.slice(0, 2).map((t) => [t.id, t.action, t.status])).toEqual([['tsk_1', 'reject_order', 'open'], ['tsk_2', 'cancel_order', 'open']]);
    for (const t of started.tasks.slice(0, 2)) {
      const o = await order(emu, t.order_id!);
      expect(o).toMatchObject({ status: 'pending', fulfillment_type: 'pickup' });
      expect(t.instruction).toContain(`order #${o.number} (${o.id})`);
    }
  });

  it('arranges its situations: the customer cancels one pending order, the merchant accepts one in the panel', async () => {
    emu = await withMenu();
    await start(emu);
    const orders = session(emu).view.orders;
    const cancelled = await order(emu, orders.find((o) => o.scenario === 'customer_cancels')!.order_id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.status_history.at(-1)).toMatchObject({ status: 'cancelled', by: 'customer' });
    const accepted = await order(emu, orders.find((o) => o.scenario === 'panel_accepts')!.order_id);
    expect(accepted.status_history.at(-1)).toMatchObject({ status: 'accepted', by: 'store_user' });
  });

  it('gives every order but the unmapped one a product with an external code, so none fails to import by chance', async () => {
    emu = await withMenu();
    await start(emu);
    for (const o of session(emu).view.orders) {
      const items = (await order(emu, o.order_id)).items as { product: { external_id: string | null } }[];
      if (o.scenario === 'unmapped_product') expect(items.some((i) => i.product.external_id === null)).toBe(true);
      else expect(items.every((i) => i.product.external_id !== null), o.scenario).toBe(true);
    }
  });

  it('opens mark_unavailable on a published product when the ERP changed no availability, and not when it did', async () => {
    emu = await withMenu();
    const opened = (await start(emu)).tasks.find((t) => t.action === 'mark_unavailable')!;
    expect(opened).toMatchObject({ id: 'tsk_3', external_id: 'erp-a', status: 'open' });
    expect(opened.instruction).toBe('Mark product "Burger A" (external_id erp-a) sold out from your ERP (available: false).');
    await emu.api('PATCH', '/catalog/products/erp-a', { body: { available: false }, idempotencyKey: 'k-sold-out-1' });
    await emu.api('PATCH', '/catalog/products/erp-a', { body: { available: false }, idempotencyKey: 'k-sold-out-1' });
    await emu.api('PATCH', '/catalog/products/erp-a', { body: { available: false }, idempotencyKey: 'k-sold-out-1' });
    // The session's 503 and 429 took the first two tries; the third went through.
    expect((await report(emu)).tasks.find((t) => t.id === 'tsk_3')).toMatchObject({ status: 'done', reason: expect.stringMatching(/^marked sold out: PATCH \/catalog\/products\/erp-a/) });
    await emu.close();

    emu = await withMenu();
    await emu.api('PATCH', '/catalog/products/erp-b', { body: { available: true } });
    expect((await start(emu)).tasks.map((t) => t.action)).toEqual(['reject_order', 'cancel_order']);
  });

  it('opens import_after_failure when the ERP reports a session order with import-failure', async () => {
    emu = await withMenu();
    await start(emu);
    const unmapped = session(emu).view.orders.find((o) => o.scenario === 'unmapped_product')!;
    const body = { code: 'unmapped_product', message: 'Unknown product', retryable: true };
    for (let i = 0; i < 3; i++) await emu.api('POST', `/orders/${unmapped.order_id}/import-failure`, { body, idempotencyKey: 'k-failure-1' });
    const task = (await report(emu)).tasks.find((t) => t.action === 'import_after_failure')!;
    expect(task).toMatchObject({ order_id: unmapped.order_id, status: 'open' });
    expect(task.instruction).toBe(`Resolve order #${unmapped.number} (${unmapped.order_id}), which your ERP reported with import-failure (for example map its product to a generic one), then confirm it with ack.`);
  });

  it('notes a situation it could not arrange (the panel may not move orders) and fails no check for it', async () => {
    emu = await withMenu();
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { order_status_authority: 'erp' } });
    const started = await start(emu);
    expect(started.notes.join(' ')).toMatch(/situation not arranged \(panel_accepts, order #\d+\)/);
    expect(started.checks.filter((c) => /situation/.test(c.reason)).map((c) => c.id)).toEqual([]);
    expect(started.checks.find((c) => c.id === 'statuses')!.status).toBe('pending');
  });
});
