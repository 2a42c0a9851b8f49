import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { openChromium, type TestBrowser } from '../helpers/panel.js';
import { controlCall, furnishedStore } from '../helpers/tokens.js';
import { issueForTest } from '../helpers/certificates.js';
import { patienceNow } from '../helpers/wait.js';

// DESIGN: The operator's public test environment — the panel's Operator section, in Chromium: the
// admin token sees the access requests and approves or denies them, and the certificates and revokes
// them; a store token never sees the section.

const ADMIN = 'panel-operator-admin-token';
let emu: TestEmulator;
let browser: TestBrowser;

beforeAll(async () => {
  emu = await startTestEmulator({ adminToken: ADMIN, accessRequests: true });
  browser = await openChromium();
});
afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

async function unlocked(token: string, { clock = false } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  page.setDefaultTimeout(patienceNow());
  // The page's own clock, injected: it runs as the real one until the test moves it on.
  if (clock) await page.clock.install();
  await page.goto(`${emu.url}/_emulator/panel`);
  await page.locator('#token-form').waitFor({ state: 'visible' });
  await page.locator('#token-input').fill(token);
  await page.locator('#token-form button').click();
  await page.locator('#live.on').waitFor();
  return page;
}

const requestAccess = async (company: string) =>
  (await controlCall(emu, 'POST', '/access-requests', null, { company, contact_email: 'ops@example.com', system: 'ERP' })).body.data as { id: string; claim_secret: string };

// The tests run at once (issue 27), each in a page of its own; none reads what another changes (a
// request, a certificate, a key, a store of its own).
describe.concurrent('the panel\'s Operator section', () => {
  it('lists a new request, approves it (its store appears), and denies another with the reason typed', async () => {
    const page = await unlocked(ADMIN, { clock: true });
    const approve = await requestAccess('Heladería Polar');
    const deny = await requestAccess('Desconocida SA');
    // Requests are not on the live stream: the section reads them again every 5 s, on the page's
    // clock, which the test moves on instead of waiting (issue 27).
    await page.clock.fastForward(5_000);
    await page.locator(`[data-request-id="${approve.id}"][data-status="pending"]`).waitFor();
    await page.locator(`[data-request-id="${approve.id}"] [data-action="approve"]`).click();
    await page.locator(`[data-request-id="${approve.id}"][data-status="approved"]`).waitFor();
    const approved = (await controlCall(emu, 'GET', '/access-requests?status=approved', ADMIN)).body.data.find((r: { id: string }) => r.id === approve.id);
    expect(approved.store_id).toMatch(/^str_/);
    await page.locator('#store-select option', { hasText: 'Heladería Polar' }).waitFor({ state: 'attached' });

    // A reason too short is refused with the API's message, and nothing changes.
    const row = page.locator(`[data-request-id="${deny.id}"]`);
    await row.getByLabel(`Deny reason ${deny.id}`).fill('no');
    await row.locator('[data-action="deny"]').click();
    await page.locator('[data-error="operator"]', { hasText: 'reason' }).waitFor();
    expect(await row.getAttribute('data-status')).toBe('pending');
    await row.getByLabel(`Deny reason ${deny.id}`).fill('We do not know this company');
    await row.locator('[data-action="deny"]').click();
    await page.locator(`[data-request-id="${deny.id}"][data-status="denied"]`).waitFor();
    const status = await fetch(`${emu.url}/_emulator/access-requests/${deny.id}`, { headers: { authorization: `Bearer ${deny.claim_secret}` } });
    expect(((await status.json()) as { data: { reason: string } }).data.reason).toBe('We do not know this company');
    await page.close();
  });

  it('lists the certificates and revokes one; rotates the signing key', async ({ expect }) => {
    const issued = await issueForTest(emu);
    const page = await unlocked(ADMIN);
    const row = page.locator(`[data-certificate-id="${issued.certificate.id}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-revoked')).toBe('false');
    await row.locator('[data-action="revoke"]').click();
    await page.locator(`[data-certificate-id="${issued.certificate.id}"][data-revoked="true"]`).waitFor();
    expect((await controlCall(emu, 'GET', '/certificates/revoked', null)).body.data.map((r: { id: string }) => r.id)).toContain(issued.certificate.id);
    const before = (await controlCall(emu, 'GET', '/certificates/keys', null)).body.keys.length;
    await page.locator('[data-action="rotate-key"]').click();
    await expect.poll(async () => (await controlCall(emu, 'GET', '/certificates/keys', null)).body.keys.length).toBe(before + 1);
    await page.close();
  });

  it('is not there for a store token', async () => {
    const store = await furnishedStore(emu, ADMIN);
    const page = await unlocked(store.token);
    await page.locator('[data-column="pending"]').waitFor();
    expect(await page.locator('#operator-section').isHidden()).toBe(true);
    expect(await page.locator('[data-request-id]').count()).toBe(0);
    await page.close();
  });
});
