import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu } from '../helpers/orders.js';
import { openChromium, type TestBrowser } from '../helpers/panel.js';
import { patienceNow, realTimePassed } from '../helpers/wait.js';
import type { HomologationReport } from '../../checks/report.js';

// The panel's homologation view during an observed session: the person's steps, open ones first,
// each beside the order it concerns, following the session live.

let emu: TestEmulator;
let browser: TestBrowser;
let page: Page;
let report: HomologationReport;

beforeAll(async () => {
  emu = await startTestEmulator({ clock: 'system' });
  await seedMenu(emu);
  // The session runs on the system clock: it must outlive this file on the slowest machine.
  report = (await emu.control<{ data: HomologationReport }>('POST', `/homologation/${emu.test.integration_id}/start`, { timeout_seconds: 600 })).body.data;
  browser = await openChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // Steps wait for what is sure to come; the limit only bounds a hang (helpers/panel.ts).
  page.setDefaultTimeout(patienceNow());
  await page.goto(`${emu.url}/_emulator/panel`);
  await page.locator('#live.on').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

const row = (id: string) => page.locator(`#homologation [data-task="${id}"]`);

describe('panel: homologation view', () => {
  it('lists the open tasks with their instruction beside the order each concerns (number and status)', async () => {
    const reject = report.tasks.find((t) => t.action === 'reject_order')!;
    const order = (await emu.control('GET', `/orders/${reject.order_id}`)).body.data;
    await row(reject.id).waitFor();
    expect(await row(reject.id).getAttribute('data-status')).toBe('open');
    expect(await row(reject.id).locator('[data-field="order"]').innerText()).toBe(`#${order.number} (pending)`);
    expect(await row(reject.id).locator('[data-field="instruction"]').innerText()).toBe(reject.instruction);
    expect(await page.locator('#homologation [data-homologation="tasks"] h3').innerText()).toBe('Your steps (2 open)');
  });

  it('follows the session live: a task done in the ERP shows done, with the call that did it', async () => {
    const reject = report.tasks.find((t) => t.action === 'reject_order')!;
    // The ERP's move; the session's armed 503 and 429 take the first two tries (same key, as a client retries).
    // Each retry waits the Retry-After of the answer before it, as a correct client does.
    let moved = await emu.api('POST', `/orders/${reject.order_id}/status`, { body: { status: 'rejected', reason: 'No stock today' }, idempotencyKey: 'panel-task-reject-1' });
    for (let attempt = 1; attempt < 3 && moved.status !== 200; attempt++) {
      await realTimePassed(Date.now(), Number(moved.headers.get('retry-after')) * 1000);
      moved = await emu.api('POST', `/orders/${reject.order_id}/status`, { body: { status: 'rejected', reason: 'No stock today' }, idempotencyKey: 'panel-task-reject-1' });
    }
    expect(moved.status).toBe(200);
    await page.locator(`#homologation [data-task="${reject.id}"][data-status="done"]`).waitFor();
    expect(await row(reject.id).locator('[data-field="reason"]').innerText()).toMatch(/^rejected with a reason: POST \/orders\/ord_\w+\/status \(req_\w+\)$/);
    expect(await row(reject.id).locator('[data-field="order"]').innerText()).toMatch(/\(rejected\)$/);
    // Open ones first: the done task went to the end of the list.
    const order = await page.locator('#homologation [data-task]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')));
    expect(order.at(-1)).toBe('done');
  });
});
