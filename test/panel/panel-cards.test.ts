import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestEmulator } from '../helpers/emulator.js';
import { simulate } from '../helpers/orders.js';
import { startPanelRig, type PanelRig } from '../helpers/panel.js';

// issue 14, "Also found" (panel): long ids and URLs overflowed their cards at 1400 px, "Mark paid" was
// offered on final orders, a refused action showed no field, and the page's favicon was a 404.

let emu: TestEmulator;
let page: Page;
let rig: PanelRig;
/** Every answer of 400 or more the page's own requests got, and every console error. */
const failures: string[] = [];

const LONG_CODE = `ERP-${'9'.repeat(60)}`;
const LONG_URL = `https://erp.example.com/${'webhooks/'.repeat(30)}merchant-kit-receiver?token=${'a'.repeat(40)}`;

const openPanel = () => rig.open();
const card = (id: string) => page.locator(`[data-order-id="${id}"]`);

beforeAll(async () => {
  rig = await startPanelRig({ width: 1400, height: 1000 });
  ({ emu, page } = rig);
  page.on('response', (res) => {
    if (res.status() >= 400) failures.push(`${res.status()} ${res.url()}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') failures.push(`console: ${msg.text()}`);
  });
});

afterAll(() => rig?.close());

/**
 * Every element inside `selector` whose box reaches past the right edge of the box that holds it
 * (its card, section or table cell), measured in the page as laid out.
 */
function overflowing(selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    for (const holder of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      const edge = holder.getBoundingClientRect().right;
      if (holder.scrollWidth > holder.clientWidth + 1) out.push(`${sel}${holder.id ? `#${holder.id}` : ""} scrolls: ${holder.scrollWidth} > ${holder.clientWidth}`);
      for (const node of Array.from(holder.querySelectorAll<HTMLElement>('*'))) {
        const right = node.getBoundingClientRect().right;
        if (right > edge + 1) out.push(`${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''} "${(node.textContent ?? '').slice(0, 30)}" ends at ${Math.round(right)} past ${Math.round(edge)}`);
      }
    }
    return out;
  }, selector);
}

describe('panel cards at 1400 px', () => {
  it('keeps long ids, codes and URLs inside their cards and sections', async () => {
    const order = await simulate(emu, { notes: `Sin cebolla ${'x'.repeat(120)}` });
    const ack = await emu.api('POST', `/orders/${order.id}/ack`, { body: { external_id: LONG_CODE, external_number: 'N'.repeat(64) }, idempotencyKey: `ack-${order.id}` });
    expect(ack.status).toBe(200);
    const hook = await emu.api('PUT', '/webhook', { body: { url: LONG_URL, events: ['*'] } });
    expect(hook.status).toBeLessThan(300);
    await emu.api('POST', '/webhook/test', { idempotencyKey: `test-hook-${order.id}` });
    await openPanel();
    await card(order.id).locator('[data-field="ack"]').filter({ hasText: LONG_CODE }).waitFor();
    await page.locator('#deliveries [data-delivery-id]').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.clientWidth)).toBe(1400);
    const problems = [
      ...(await overflowing('.card')),
      ...(await overflowing('.column')),
      ...(await overflowing('.columns > section')),
      ...(await overflowing('#deliveries-section')),
    ];
    expect(problems).toEqual([]);
    // The page itself never scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1400);
  });
});

describe('order card actions', () => {
  it('offers "Mark paid" on open orders and never on completed, rejected or cancelled ones', async () => {
    const open = await simulate(emu);
    const completed = await simulate(emu, { scenario: 'pickup_invoice' });
    const rejected = await simulate(emu);
    const cancelled = await simulate(emu);
    const status = (id: string, body: object) => emu.control('POST', `/orders/${id}/status`, { by: 'store_user', ...body });
    await status(completed.id, { status: 'accepted' });
    await status(completed.id, { status: 'completed' });
    await status(rejected.id, { status: 'rejected', reason: 'Sin stock' });
    await status(cancelled.id, { status: 'cancelled', reason: 'Cliente llamó' });
    for (const [id, column] of [[completed.id, 'completed'], [rejected.id, 'rejected'], [cancelled.id, 'cancelled']] as const) {
      await page.locator(`[data-column="${column}"] [data-order-id="${id}"]`).waitFor();
      expect(await card(id).locator('[data-action="paid"]').count(), column).toBe(0);
    }
    await card(open.id).waitFor();
    expect(await card(open.id).locator('[data-action="paid"]').count()).toBe(1);
  });

  it('shows the Spanish message and the refused field of a refused action, and marks the field', async () => {
    const order = await simulate(emu);
    await card(order.id).waitFor();
    const direct = await emu.control('POST', `/orders/${order.id}/status`, { status: 'rejected', reason: 'no', by: 'store_user' });
    expect(direct.status).toBe(422);
    const detail = direct.body.error.details[0];
    expect(detail.field).toBe('reason');
    await card(order.id).locator('input[aria-label="Reason"]').fill('no');
    await card(order.id).locator('[data-action="reject"]').click();
    const error = card(order.id).locator('[data-field="error"]');
    await expect.poll(() => error.textContent()).toContain(direct.body.error.message);
    expect(await error.textContent()).toContain(`reason: ${detail.message}`);
    expect(await card(order.id).locator('input[aria-label="Reason"]').getAttribute('aria-invalid')).toBe('true');
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.status).toBe('pending');
  });

  it('shows the refused field of a section\'s action: a webhook URL the API refuses', async () => {
    await page.locator('input[aria-label="Webhook URL"]').fill('https://erp_1.example.com/hooks');
    await page.locator('#webhook button', { hasText: /Save/ }).click();
    const error = page.locator('#webhook [role="alert"]').last();
    await expect.poll(() => error.textContent()).toContain('url: ');
    expect(await error.textContent()).toMatch(/no son válidos/);
    expect(await page.locator('input[aria-label="Webhook URL"]').getAttribute('aria-invalid')).toBe('true');
  });
});

describe('panel assets', () => {
  it('declares a favicon the emulator serves, so the browser asks for no missing one', async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toBeTruthy();
    const res = await fetch(new URL(href!, emu.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    failures.length = 0;
    // The browser asks for the declared icon once the page has loaded: its answer is the last of the
    // page's own requests to wait for.
    const icon = new URL(href!, emu.url).pathname;
    const asked = page.waitForResponse((r) => new URL(r.url()).pathname === icon);
    await openPanel();
    expect((await asked).status()).toBe(200);
    expect(failures.filter((f) => !f.includes('/_emulator/homologation/'))).toEqual([]);
  });
});
