import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { openChromium, type TestBrowser } from '../helpers/panel.js';
import { controlCall, furnishedStore, type FurnishedStore } from '../helpers/tokens.js';
import { patienceNow } from '../helpers/wait.js';

// DESIGN, Storage and the team sandbox: a store token opens that store's panel only. In Chromium:
// the panel unlocked with a store's token opens on that store, lists no other, follows that
// store's live updates and never another's, and offers no sandbox control (the clock).

const ADMIN = 'panel-admin-token-largo';
let emu: TestEmulator;
let browser: TestBrowser;
let a: FurnishedStore;
let b: FurnishedStore;
let live: FurnishedStore;

beforeAll(async () => {
  emu = await startTestEmulator({ adminToken: ADMIN });
  a = await furnishedStore(emu, ADMIN);
  b = await furnishedStore(emu, ADMIN);
  live = await furnishedStore(emu, ADMIN, 'live');
  browser = await openChromium();
});
afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

/** The panel unlocked with `token`, live, its board drawn. */
async function unlocked(token: string): Promise<{ page: Page; urls: string[]; bearers: Set<string> }> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1100 } });
  page.setDefaultTimeout(patienceNow());
  const urls: string[] = [];
  const bearers = new Set<string>();
  page.on('request', (r) => {
    urls.push(r.url());
    const auth = r.headers().authorization;
    if (auth) bearers.add(auth);
  });
  await page.goto(`${emu.url}/_emulator/panel`);
  await page.locator('#token-form').waitFor({ state: 'visible' });
  await page.locator('#token-input').fill(token);
  await page.locator('#token-form button').click();
  await page.locator('#live.on').waitFor();
  await page.locator('[data-column="pending"]').waitFor();
  return { page, urls, bearers };
}

const options = (page: Page, select: string) => page.locator(`${select} option`).evaluateAll((nodes) => nodes.map((n) => (n as HTMLOptionElement).value));

describe('the panel with a store token', () => {
  it('opens on that store, lists no other, and shows its orders only', async () => {
    const { page, urls, bearers } = await unlocked(a.token);
    expect(await options(page, '#env-select')).toEqual(['test']);
    expect(await options(page, '#store-select')).toEqual([a.storeId]);
    await page.locator(`[data-order-id="${a.orders[0]}"]`).waitFor();
    expect(await page.locator(`[data-order-id="${b.orders[0]}"]`).count()).toBe(0);
    // The clock is the sandbox's: shown, not moved from here.
    await page.locator('[data-notice="clock-admin"]').waitFor();
    expect(await page.locator('#advance-clock').count()).toBe(0);
    // The token travels in the Authorization header only, never in a URL.
    expect([...bearers]).toEqual([`Bearer ${a.token}`]);
    expect(urls.some((u) => u.includes(a.token.slice(4)))).toBe(false);
    await page.close();
  });

  it('simulates an order on its store, and follows its store\'s live updates, never another\'s', async () => {
    const { page } = await unlocked(a.token);
    const before = await page.locator('[data-order-id]').count();
    await page.locator('#simulate').click();
    await expect.poll(() => page.locator('[data-order-id]').count()).toBe(before + 1);

    const other = await controlCall(emu, 'POST', '/orders', ADMIN, { store_id: b.storeId, scenario: 'pickup_invoice' });
    const mine = await controlCall(emu, 'POST', '/orders', ADMIN, { store_id: a.storeId, scenario: 'pickup_invoice' });
    await page.locator(`[data-order-id="${mine.body.data.id}"]`).waitFor();
    expect(await page.locator(`[data-order-id="${other.body.data.id}"]`).count()).toBe(0);
    expect(await page.locator('[data-order-id]').count()).toBe(before + 2);

    // An action on the board goes through with the store's token.
    await page.locator(`[data-order-id="${mine.body.data.id}"] [data-action="accept"]`).click();
    await page.locator(`[data-order-id="${mine.body.data.id}"][data-status="accepted"]`).waitFor();
    await page.close();
  });

  it('opens a live store\'s token on the live environment', async () => {
    const { page } = await unlocked(live.token);
    expect(await options(page, '#env-select')).toEqual(['live']);
    expect(await options(page, '#store-select')).toEqual([live.storeId]);
    await page.locator(`[data-order-id="${live.orders[0]}"]`).waitFor();
    await page.close();
  });

  it('with the admin token lists every store and offers the clock', async () => {
    const { page } = await unlocked(ADMIN);
    expect(await options(page, '#store-select')).toEqual(expect.arrayContaining([emu.test.store_id, a.storeId, b.storeId]));
    await page.locator('#advance-clock').waitFor();
    await page.close();
  });
});
