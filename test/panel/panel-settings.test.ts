import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestEmulator } from '../helpers/emulator.js';
import { simulate, orderAction } from '../helpers/orders.js';
import { startPanelRig, type PanelRig } from '../helpers/panel.js';

let emu: TestEmulator;
let page: Page;
let rig: PanelRig;
const card = (id: string) => page.locator(`[data-order-id="${id}"]`);
const webhook = (emu: TestEmulator) => emu.api('GET', '/webhook');

beforeAll(async () => {
  rig = await startPanelRig({ width: 1400, height: 1000 });
  ({ emu, page } = rig);
}, 60_000);

afterAll(() => rig?.close());

describe('panel: alerts, store, integration, webhook and deliveries', () => {
  it('shows an import failure reported by the ERP on the order', async () => {
    const order = await simulate(emu);
    const res = await orderAction(emu, order.id, 'import-failure', { code: 'unmapped_product', message: 'Producto <b>X</b> sin código', retryable: true });
    expect(res.status).toBe(200);
    const alert = card(order.id).locator('[data-alert="import_failed"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('unmapped_product Producto <b>X</b> sin código (retryable)');
    expect(await card(order.id).locator('[data-field="ack"]').textContent()).toBe('ERP: failed');
  });

  it('pauses and opens order reception from the store section', async () => {
    await page.locator('#store-switch').click();
    await expect.poll(async () => (await emu.api('GET', '/store')).body.data.accepting_orders).toBe(false);
    await page.locator('#store-switch').getByText('Open for orders').waitFor();
    await page.locator('#store-switch').click();
    await expect.poll(async () => (await emu.api('GET', '/store')).body.data.accepting_orders).toBe(true);
  });

  it('changes settings and scopes, suspends and resumes the integration', async () => {
    await page.locator('select[aria-label="order_status_authority"]').selectOption('erp');
    await page.locator('input[aria-label="ack_alert_minutes"]').fill('12');
    await page.locator('#integration input[value="catalog:write"]').uncheck();
    await page.locator('#integration').getByText('Save settings and scopes').click();
    await expect.poll(async () => (await emu.api('GET', '/me')).body.data.integration.settings.ack_alert_minutes).toBe(12);
    const me = (await emu.api('GET', '/me')).body.data.integration;
    expect(me.settings.order_status_authority).toBe('erp');
    expect(me.scopes).not.toContain('catalog:write');
    await page.locator('#integration').getByText('Suspend integration').click();
    await expect.poll(async () => (await emu.api('GET', '/me')).body.data.integration.status).toBe('suspended');
    await page.locator('#integration').getByText('Resume integration').click();
    await expect.poll(async () => (await emu.api('GET', '/me')).body.data.integration.status).toBe('active');
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, {
      settings: { order_status_authority: 'both' }, scopes: ['store:read', 'store:write', 'catalog:read', 'catalog:write', 'orders:read', 'orders:write', 'webhooks:manage'],
    });
  });

  it('keeps a webhook URL being typed, and the cursor, while a live update redraws the section', async () => {
    const url = page.locator('input[aria-label="Webhook URL"]');
    await url.click();
    await page.keyboard.type('http://127.0.0.1:9/');
    const before = await page.locator('#clock-now').textContent();
    await emu.control('POST', '/clock/advance', { seconds: 60 });
    await expect.poll(() => page.locator('#clock-now').textContent()).not.toBe(before);
    await page.keyboard.type('typed');
    expect(await url.inputValue()).toBe('http://127.0.0.1:9/typed');
    expect(await url.evaluate((node) => node === document.activeElement)).toBe(true);
    await url.fill('');
  });

  it('sets a webhook, shows its signing secret once, lists deliveries with attempts and retries one', async () => {
    await page.locator('input[aria-label="Webhook URL"]').fill('http://127.0.0.1:9/hook');
    await page.locator('input[aria-label="Webhook events"]').fill('order.created');
    await page.locator('#webhook').getByText('Save webhook').click();
    const secret = page.locator('[data-secret="webhook"] code');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    expect((await webhook(emu)).body.data.url).toBe('http://127.0.0.1:9/hook');
    const order = await simulate(emu);
    await emu.control('POST', '/webhooks/drain');
    const row = page.locator('[data-delivery-id]').first();
    await row.getByText(/#1 .* failed/).waitFor();
    await row.getByText('Retry now').click();
    await row.getByText(/#2 .* failed .*\(manual\)/).waitFor();
    expect(order.id).toMatch(/^ord_/);
  });

  it('shows the pause notice after 72 hours of failed deliveries and reactivates the webhook', async () => {
    for (let h = 0; h < 80; h += 8) {
      await emu.control('POST', '/clock/advance', { seconds: 8 * 3600 });
      await emu.control('POST', '/webhooks/drain');
    }
    await simulate(emu);
    await emu.control('POST', '/webhooks/drain');
    await expect.poll(async () => (await webhook(emu)).body.data.paused).toBe(true);
    await page.locator('[data-notice="paused"]').waitFor();
    await page.locator('#webhook').getByText('Save and reactivate').click();
    await expect.poll(async () => (await webhook(emu)).body.data.paused).toBe(false);
    await page.locator('[data-notice="paused"]').waitFor({ state: 'detached' });
  });

  it('switches to the live environment and its store', async () => {
    await page.locator('#env-select').selectOption('live');
    await expect.poll(() => page.locator('#store-select').inputValue()).toBe(emu.live.store_id);
    await page.locator('#env-select').selectOption('test');
    await expect.poll(() => page.locator('#store-select').inputValue()).toBe(emu.test.store_id);
  });
});
