import { describe, expect, it, type TestContext } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import type { HomologationReport } from '../../checks/report.js';

// DESIGN: Session orders carry only the ERP's products, except the one order with the session's
// unmapped product; no two tasks name one order; with no active product the session waits.

// The tests run at once, each on an emulator of its own: two of them wait out real time (a
// session's deadline, the merchant's 10 s), which the others need not wait behind.

/** An emulator for this test alone, closed when it ends. */
async function own(emulator: Promise<TestEmulator>, { onTestFinished }: TestContext): Promise<TestEmulator> {
  const e = await emulator;
  onTestFinished(() => e.close());
  return e;
}

type Item = { product: { id: string; external_id: string | null }; options: { option: { external_id: string | null } }[] };
const start = async (e: TestEmulator, timeout = 60) => (await e.control<{ data: HomologationReport }>('POST', `/homologation/${e.test.integration_id}/start`, { timeout_seconds: timeout })).body.data;
const report = async (e: TestEmulator) => (await e.control<{ data: HomologationReport }>('GET', `/homologation/${e.test.integration_id}`)).body.data;
const ordersOf = async (e: TestEmulator) => (await e.api('GET', '/orders?limit=200')).body.data as { id: string; number: number; notes: string; items: Item[] }[];

describe.concurrent('observed session: its orders', () => {
  it('gives every order the ERP\'s one product (its required option chosen), and only the unmapped one the session\'s product without a code', async (t) => {
    const emu = await own(startTestEmulator(), t);
    await emu.api('PUT', '/catalog/categories/c1', { body: { name: 'Combos' } });
    const combo = { name: 'Combo', category_external_id: 'c1', price: '25000', option_groups: [{ external_id: 'g1', name: 'Drink', min_select: 1, max_select: 1, options: [{ external_id: 'o1', name: 'Cocido', price: '0' }] }] };
    expect((await emu.api('PUT', '/catalog/products/combo', { body: combo })).status).toBe(201);
    const started = await start(emu);
    const orders = await ordersOf(emu);
    expect(orders.length).toBe(8);
    for (const o of orders) {
      const coded = o.items.filter((i) => i.product.external_id !== null);
      expect(coded.map((i) => i.product.external_id), o.notes).toEqual(['combo']);
      expect(coded[0]!.options.map((x) => x.option.external_id)).toEqual(['o1']);
      const uncoded = o.items.filter((i) => i.product.external_id === null);
      expect(uncoded.length, o.notes).toBe(o.notes === 'homologation unmapped_product order' ? 1 : 0);
    }
    const named = started.tasks.map((t) => t.order_id).filter(Boolean);
    expect(new Set(named).size).toBe(named.length);
  });

  it('opens no import_after_failure on an order another task names (no two tasks name one order)', async (t) => {
    const emu = await own(startTestEmulator(), t);
    await emu.api('PUT', '/catalog/categories/c1', { body: { name: 'Menu' } });
    await emu.api('PUT', '/catalog/products/p1', { body: { name: 'Burger', category_external_id: 'c1', price: '30000' } });
    const started = await start(emu);
    const rejectOrder = started.tasks.find((t) => t.action === 'reject_order')!.order_id!;
    const body = { code: 'register_closed', message: 'Caja cerrada', retryable: true };
    expect((await emu.api('POST', `/orders/${rejectOrder}/import-failure`, { body, idempotencyKey: 'k-fail-1' })).status).toBe(503);
    expect((await emu.api('POST', `/orders/${rejectOrder}/import-failure`, { body, idempotencyKey: 'k-fail-1' })).status).toBe(429);
    expect((await emu.api('POST', `/orders/${rejectOrder}/import-failure`, { body, idempotencyKey: 'k-fail-1' })).status).toBe(200);
    const tasks = (await report(emu)).tasks;
    expect(tasks.filter((t) => t.order_id === rejectOrder).map((t) => t.action)).toEqual(['reject_order']);
  });
});

describe.concurrent('observed session: nothing to order', () => {
  it('says "publish your catalog first", makes no order until there is an active product of the ERP, then makes them', async (t) => {
    const emu = await own(startTestEmulator(), t);
    const started = await start(emu);
    expect(started.notes.join(' ')).toMatch(/The session waits: publish your catalog first/);
    expect(started.checks.find((c) => c.id === 'order_reception')).toMatchObject({ status: 'pending', reason: expect.stringMatching(/^publish your catalog first/) });
    expect(await ordersOf(emu)).toEqual([]);
    // An inactive product is nothing to order either.
    await emu.api('PUT', '/catalog/categories/c1', { body: { name: 'Menu' } });
    await emu.api('PUT', '/catalog/products/p1', { body: { name: 'Burger', category_external_id: 'c1', price: '30000', active: false } });
    await new Promise((r) => setTimeout(r, 600));
    expect(await ordersOf(emu)).toEqual([]);
    await emu.api('PATCH', '/catalog/products/p1', { body: { active: true }, idempotencyKey: 'k-activate-1' });
    await emu.api('PATCH', '/catalog/products/p1', { body: { active: true }, idempotencyKey: 'k-activate-1' });
    await emu.api('PATCH', '/catalog/products/p1', { body: { active: true }, idempotencyKey: 'k-activate-1' });
    for (const until = Date.now() + 10_000; (await ordersOf(emu)).length < 8 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    expect((await ordersOf(emu)).length).toBe(8);
    expect((await report(emu)).notes.join(' ')).not.toMatch(/publish your catalog first/);
  });

  it('at its deadline fails catalog alone with that cause, grades nothing that needs its orders, and says so in English', async (t) => {
    const emu = await own(startTestEmulator({ clock: 'system' }), t);
    await emu.api('GET', '/me');
    await start(emu, 5);
    let r = await report(emu);
    for (const until = Date.now() + 20_000; !r.complete && Date.now() < until; r = await report(emu)) await new Promise((res) => setTimeout(res, 200));
    expect(r.complete).toBe(true);
    expect(Object.fromEntries(r.checks.map((c) => [c.id, c.status]))).toEqual({ connection: 'pass', catalog: 'fail', order_reception: 'skip', signature_rejection: 'skip', import: 'skip', import_recovery: 'skip', statuses: 'skip', retries: 'skip' });
    expect(r.checks.find((c) => c.id === 'catalog')!.reason).toMatch(/^no active product: publish your catalog first/);
    expect(JSON.stringify(r)).not.toMatch(/El comercio|\byet\b/);
  });
});

describe.concurrent('observed session: the settings', () => {
  it('publishes no reject_order or cancel_order task under order_status_authority: service', async (t) => {
    const emu = await own(startTestEmulator(), t);
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { order_status_authority: 'service' } });
    await emu.api('PUT', '/catalog/categories/c1', { body: { name: 'Menu' } });
    await emu.api('PUT', '/catalog/products/p1', { body: { name: 'Burger', category_external_id: 'c1', price: '30000' } });
    const started = await start(emu);
    expect(started.tasks.filter((t) => t.action === 'reject_order' || t.action === 'cancel_order')).toEqual([]);
    expect(started.settings).toEqual({ order_status_authority: 'service', ack_expected: 'on_receipt' });
  });

  it('accepts, as the merchant, the orders an ack_expected: after_acceptance ERP leaves pending for 10 s, and not the one a person is asked to reject', async (t) => {
    const emu = await own(startTestEmulator({ clock: 'system' }), t);
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { ack_expected: 'after_acceptance' } });
    await emu.api('PUT', '/catalog/categories/c1', { body: { name: 'Menu' } });
    await emu.api('PUT', '/catalog/products/p1', { body: { name: 'Burger', category_external_id: 'c1', price: '30000' } });
    const started = await start(emu);
    const reject = started.tasks.find((t) => t.action === 'reject_order')!.order_id;
    type Listed = { id: string; status: string; created_at: string; status_history: { status: string; at: string; by: string }[] };
    const list = async () => (await emu.api('GET', '/orders?limit=200')).body.data as Listed[];
    // Waits for the merchant's acceptances (every order but the one to reject leaves pending); the
    // limit only bounds a hang.
    for (const until = Date.now() + 60_000; (await list()).filter((o) => o.status === 'pending').length > 1 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 200));
    const orders = await list();
    expect(orders.filter((o) => o.status === 'pending').map((o) => o.id)).toEqual([reject]);
    // By the orders' own times (the emulator's system clock), not by a sleep of the test: only the
    // panel's situation was accepted by the merchant within 10 s; the rest waited 10 s or more.
    const acceptedAfter = (o: Listed) => {
      const accepted = o.status_history.find((h) => h.status === 'accepted' && h.by === 'store_user');
      return accepted ? Date.parse(accepted.at) - Date.parse(o.created_at) : null;
    };
    const waits = orders.map(acceptedAfter).filter((ms): ms is number => ms !== null);
    expect(waits.filter((ms) => ms < 10_000)).toHaveLength(1);
    expect(waits.filter((ms) => ms >= 10_000).length).toBeGreaterThan(0);
    const history = (await emu.api('GET', `/orders/${started.tasks.find((t) => t.action === 'cancel_order')!.order_id}`)).body.data.status_history;
    expect(history.at(-1)).toMatchObject({ status: 'accepted', by: 'store_user' });
  }, 300_000);
});
