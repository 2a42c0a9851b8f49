import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, waitForStderr } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { homologationScratch, runToEnd, startRealEnvironmentProxy } from '../helpers/homologation.js';

// A "real environment": the emulator's API behind a proxy that hides /_emulator.
let emu: TestEmulator;
let proxy: Awaited<ReturnType<typeof startRealEnvironmentProxy>>;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
  proxy = await startRealEnvironmentProxy(emu.url);
});
afterAll(async () => {
  await proxy?.close();
  await emu?.close();
});

const statusOf = (report: { checks: { id: string; status: string }[] }) => Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

describe('homologate against a real environment', () => {
  it('with --non-interactive skips the steps that need a person, says so, and does not certify', async () => {
    const scratch = homologationScratch();
    const r = await runToEnd(['homologate', '--non-interactive', '--report-dir', scratch.reports], { ...scratch.env, MERCHANT_KIT_BASE_URL: proxy.url, MERCHANT_KIT_CREDENTIAL: emu.test.credential });
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
    expect(report).toMatchObject({ mode: 'non_interactive', target: { emulator: false }, complete: true, summary: { certified: false } });
    expect(statusOf(report)).toMatchObject({ connection: 'pass', catalog: 'pass', order_reception: 'skip', signature_rejection: 'pass', retries: 'skip' });
    expect(report.notes.join(' ')).toMatch(/--non-interactive: the steps that need a person/);
    expect(r.stdout).toMatch(/note: --non-interactive/);
    // The real environment's webhook is left alone (it could not reach this machine anyway).
    expect((await emu.api('GET', '/webhook')).status).toBe(404);
  });

  it('asks the person to create the orders in the panel and finds them on the feed', async () => {
    const scratch = homologationScratch();
    const cli = runCli(['homologate', '--timeout', '30', '--report-dir', scratch.reports], { ...scratch.env, MERCHANT_KIT_BASE_URL: proxy.url, MERCHANT_KIT_CREDENTIAL: emu.test.credential });
    // Two lines, each its own write: wait for the second, then check both (under load the first can be read alone).
    await waitForStderr(cli, 'Waiting up to 30 s for them on the event feed');
    expect(cli.stderr()).toContain('Create three orders');
    // The person, in the panel's simulator.
    for (const scenario of ['delivery', 'pickup_invoice', 'unmapped_product']) {
      expect((await emu.control('POST', '/orders', { store_id: emu.test.store_id, scenario })).status).toBe(201);
    }
    const { code } = await cli.exited;
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
    expect(report.mode).toBe('interactive');
    expect(statusOf(report)).toEqual({ connection: 'pass', catalog: 'pass', order_reception: 'pass', signature_rejection: 'pass', import: 'pass', import_recovery: 'pass', statuses: 'pass', retries: 'skip' });
    expect(report.checks.find((c: { id: string }) => c.id === 'order_reception').reason).toMatch(/webhook delivery not checked/);
  });
});
