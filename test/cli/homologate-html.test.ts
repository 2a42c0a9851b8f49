import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { homologationScratch, runToEnd } from '../helpers/homologation.js';
import { openChromium, type TestBrowser } from '../helpers/panel.js';
import { driveTasks, startReferenceErp } from '../helpers/reference-erp.js';
import { startEmulatorProcess, type EmulatorProcess } from '../helpers/erps/observe.js';
import type { ReadyInfo } from '../../emulator/server.js';

let observedOn: EmulatorProcess;
let automaticOn: TestEmulator;
let browser: TestBrowser;
let certified: string;
let reference: string;
let partial: string;

const envOf = (ready: Pick<ReadyInfo, 'sandbox_base_url'>, test: { credential: string }) => ({ MERCHANT_KIT_BASE_URL: ready.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: test.credential });

/** An observed ERP, certified: the only run with a certificate. */
async function observedRun(emu: EmulatorProcess): Promise<string> {
  const erp = await startReferenceErp(emu.ready.sandbox_base_url, emu.test.credential);
  const driver = driveTasks(emu.ready.admin_url, emu.test.integration_id, erp.operator);
  const o = homologationScratch();
  const observed = await runToEnd(['homologate', '--observe', '--integration', emu.test.integration_id, '--timeout', '60', '--report-dir', o.reports], { ...o.env, ...envOf(emu.ready, emu.test) });
  await driver.stop();
  await erp.close();
  expect(observed.code, observed.stderr).toBe(0);
  return o.reports;
}

/** The automatic run, then one of some checks (--only). */
async function automaticRuns(emu: TestEmulator): Promise<[string, string]> {
  const a = homologationScratch();
  expect((await runToEnd(['homologate', '--report-dir', a.reports], { ...a.env, ...envOf(emu.running, emu.test) })).code).toBe(0);
  const b = homologationScratch();
  expect((await runToEnd(['homologate', '--only', 'connection', '--report-dir', b.reports], { ...b.env, ...envOf(emu.running, emu.test) })).code).toBe(0);
  return [a.reports, b.reports];
}

beforeAll(async () => {
  await ensureBuilt();
  // The observed session and the automatic runs at once, each on an emulator of its own (the
  // observer grades every call of the integration: the automatic run's would be among them), while
  // Chromium starts. The observed one in a process of its own (the built CLI, system clock): the
  // observer's retry timing reads the emulator's event loop, which the automatic runs keep busy here.
  [observedOn, automaticOn] = await Promise.all([startEmulatorProcess(), startTestEmulator({ clock: 'system' })]);
  [certified, [reference, partial], browser] = await Promise.all([observedRun(observedOn), automaticRuns(automaticOn), openChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([observedOn?.close(), automaticOn?.close()]);
});

/** Opens a report page and collects every request it makes beyond its own file. */
async function open(dir: string) {
  const page = await browser.newPage();
  const external: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) external.push(r.url());
  });
  await page.goto(pathToFileURL(join(dir, 'homologation.html')).href);
  return { page, external };
}

describe('homologation.html in headless Chromium', () => {
  it('shows the certificate of an observed ERP with integration, store, environment, intake and settings, date, checks and the SHA-256 of homologation.json', async () => {
    const { page, external } = await open(certified);
    const emu = observedOn;
    await expect(page.locator('#verdict').innerText()).resolves.toBe('Certified: 8/8 checks passed.');
    const cert = page.locator('#certificate');
    expect(await cert.isVisible()).toBe(true);
    const json = readFileSync(join(certified, 'homologation.json'));
    const report = JSON.parse(json.toString('utf8'));
    // The observed ERP's own integration and store, and who ran said plainly.
    expect(await page.locator('#cert-integration').innerText()).toBe(emu.test.integration_id);
    expect(await page.locator('#cert-store').innerText()).toContain(emu.test.store_id);
    expect(await page.locator('#cert-subject').innerText()).toBe(`Run by your ERP (integration ${emu.test.integration_id}), graded from its own calls.`);
    expect(await page.locator('#cert-environment').innerText()).toBe('test (emulator)');
    expect(await page.locator('#cert-intake').innerText()).toBe('Intake: both · order_status_authority: both · ack_expected: on_receipt');
    expect(await page.locator('#cert-date').innerText()).toBe(report.generated_at);
    expect((await page.locator('#cert-checks').innerText()).split(', ')).toHaveLength(8);
    expect(await page.locator('#cert-sha256').innerText()).toBe(createHash('sha256').update(json).digest('hex'));
    // Each check with its evidence, and nothing fetched from elsewhere (one self-contained file).
    expect(await page.locator('section.check[data-status="pass"]').count()).toBe(8);
    expect(await page.locator('#check-connection li').first().innerText()).toMatch(/GET \/me .*→ 200 .*req_/);
    expect(external).toEqual([]);
    await page.close();
  });

  it('shows no certificate for the automatic run: "Reference run passed" (a certificate is only for an observed ERP)', async () => {
    const { page } = await open(reference);
    await expect(page.locator('#verdict').innerText()).resolves.toBe('Reference run passed: 8/8 checks passed.');
    expect(await page.locator('#certificate').count()).toBe(0);
    expect(await page.locator('#subject').innerText()).toBe("Run by merchant-kit's reference integrator, not your ERP (only an observed run, homologate --observe, certifies an ERP).");
    expect(await page.locator('section.check[data-status="pass"]').count()).toBe(8);
    await page.close();
  });

  it('shows no certificate and names what is missing when not every mandatory check ran', async () => {
    const { page } = await open(partial);
    await expect(page.locator('#verdict').innerText()).resolves.toBe('Selected checks passed: 1/1. A run of some checks (--only) never certifies.');
    expect(await page.locator('#certificate').count()).toBe(0);
    expect(await page.locator('section.check').count()).toBe(1);
    expect(await page.locator('#summary tbody tr').count()).toBe(1);
    expect(await page.locator('body').innerText()).toContain('Not run (a certificate needs every mandatory check): catalog, order_reception, signature_rejection, import, statuses, retries.');
    await page.close();
  });
});
