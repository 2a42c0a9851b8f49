import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { ensureBuilt, runCli, waitForStderr } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import type { ReadyInfo } from '../../emulator/server.js';
import { filesIn, homologationScratch, runToEnd, startBalancer } from '../helpers/homologation.js';
import { driveTasks, startReferenceErp } from '../helpers/reference-erp.js';
import { startEmulatorProcess } from '../helpers/erps/observe.js';

beforeAll(ensureBuilt);

// The tests run at once, each on an emulator of its own: each mostly waits (a session's settle
// window and deadline, a CLI's polls), which the others need not wait behind. An ERP's session runs
// in an emulator process of its own (the built CLI, system clock): the observer's retry timing reads
// the emulator's event loop, which sessions of other tests would keep busy here.

/** An emulator for this test alone, closed when it ends (after its ERP and driver, given to `stops`). */
async function own(t: TestContext): Promise<{ emu: TestEmulator; stops: (() => Promise<unknown>)[] }> {
  const started = await startTestEmulator({ clock: 'system' });
  let closed: Promise<void> | undefined;
  // A test may stop its emulator itself (mid-session): once is enough.
  const emu = { ...started, close: () => (closed ??= started.close()) };
  const stops: (() => Promise<unknown>)[] = [];
  t.onTestFinished(async () => {
    for (const stop of stops) await stop();
    await emu.close();
  });
  return { emu, stops };
}

/** An emulator process for this test alone, closed when it ends (after its ERP and driver, given to `stops`). */
async function ownProcess(t: TestContext): Promise<{ emu: Pick<TestEmulator, 'url' | 'test'> & { running: ReadyInfo }; stops: (() => Promise<unknown>)[] }> {
  const started = await startEmulatorProcess();
  const stops: (() => Promise<unknown>)[] = [];
  t.onTestFinished(async () => {
    for (const stop of stops) await stop();
    await started.close();
  });
  return { emu: { url: started.ready.url, running: started.ready, test: started.test }, stops };
}

const envFor = (e: Pick<TestEmulator, 'test'> & { running: Pick<ReadyInfo, 'sandbox_base_url'> }, scratch: ReturnType<typeof homologationScratch>) => ({
  ...scratch.env,
  MERCHANT_KIT_BASE_URL: e.running.sandbox_base_url,
  MERCHANT_KIT_CREDENTIAL: e.test.credential,
});

describe.concurrent('homologate --observe', () => {
  it('grades the reference ERP from its own calls, shows each task as it opens and is done, each check once, and certifies it', async (t) => {
    const { emu, stops } = await ownProcess(t);
    const erp = await startReferenceErp(emu.running.sandbox_base_url, emu.test.credential);
    const driver = driveTasks(emu.running.admin_url, emu.test.integration_id, erp.operator);
    stops.push(() => driver.stop(), () => erp.close());
    const scratch = homologationScratch();
    const r = await runToEnd(['homologate', '--observe', '--integration', emu.test.integration_id, '--timeout', '30', '--report-dir', scratch.reports], envFor(emu, scratch));
    expect(r.code, r.stderr).toBe(0);
    // Each check once in the log (issue 27): plain progress (CI, not a TTY) leaves the checks to the
    // summary that follows on stdout.
    const decided = (text: string) => text.split('\n').filter((l) => /^(PASS|FAIL)\s/.test(l));
    expect(decided(r.stdout)).toHaveLength(8);
    expect(decided(r.stderr)).toEqual([]);
    const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
    expect(report).toMatchObject({ mode: 'observer', complete: true, summary: { certified: true, passed: 8 } });
    // Each task with its instruction when it opens, then a line when it is done.
    for (const t of report.tasks) {
      expect(r.stderr).toContain(`Your step ${t.id} (${t.action}): ${t.instruction}`);
      expect(r.stderr).toContain(`Done ${t.id} (${t.action}): ${t.reason}`);
    }
    expect(r.stderr).toMatch(/Your step tsk_1 \(reject_order\): Reject order #\d+ \(ord_\w+\) from your ERP with a reason/);
    // The summary's "Your steps" list, and the Markdown report's.
    expect(r.stdout).toContain('Your steps:');
    expect(readFileSync(join(scratch.reports, 'homologation.md'), 'utf8')).toMatch(/## Your steps\n\n- ✅ \*\*DONE\*\* `tsk_1` reject_order: Reject order #/);
    expect(filesIn(scratch.reports)).toHaveLength(4);
    expect(erp.errors).toEqual([]);
    expect(driver.errors).toEqual([]);
  });

  it('names the address it was given (a balancer in front of the emulator), the intake and settings, and prints the verdict line with --format json,md', async (t) => {
    const { emu, stops } = await ownProcess(t);
    const erp = await startReferenceErp(emu.running.sandbox_base_url, emu.test.credential);
    const driver = driveTasks(emu.running.admin_url, emu.test.integration_id, erp.operator);
    stops.push(() => driver.stop(), () => erp.close());
    const balancer = await startBalancer(emu.url);
    try {
      const scratch = homologationScratch();
      const given = `${balancer.url}/sandbox/v1`;
      const r = await runToEnd(['homologate', '--observe', '--integration', emu.test.integration_id, '--timeout', '60', '--format', 'json,md', '--report-dir', scratch.reports], { ...envFor(emu, scratch), MERCHANT_KIT_BASE_URL: given });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe('Certified: 8/8 checks passed.');
      const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
      expect(report.target.base_url).toBe(given);
      expect(report.target.base_url).not.toContain(new URL(emu.url).port);
      // The reference ERP has its webhook and reads the feed now and then.
      expect(report).toMatchObject({ intake: 'both', settings: { order_status_authority: 'both', ack_expected: 'on_receipt' } });
      expect(readFileSync(join(scratch.reports, 'homologation.md'), 'utf8')).toContain('Intake: both · order_status_authority: both · ack_expected: on_receipt');
    } finally {
      await balancer.close();
    }
  });

  it('names the tasks still open when nobody does them, fails statuses, and leaves no listener warning after many polls', async (t) => {
    const { emu, stops } = await ownProcess(t);
    const erp = await startReferenceErp(emu.running.sandbox_base_url, emu.test.credential);
    stops.push(() => erp.close());
    const scratch = homologationScratch();
    const r = await runToEnd(['homologate', '--observe', '--integration', emu.test.integration_id, '--timeout', '6', '--report-dir', scratch.reports], envFor(emu, scratch));
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
    const statuses = report.checks.find((c: { id: string }) => c.id === 'statuses');
    expect(statuses.reason).toMatch(/^tasks still open: tsk_1 reject_order \(ord_\w+\), tsk_2 cancel_order \(ord_\w+\)/);
    expect(r.stdout).toMatch(/Your steps:\n\s+OPEN tsk_1 reject_order: Reject order #/);
    // About 20 polls of the report: none leaves an abort listener behind.
    expect(r.stderr).not.toContain('MaxListenersExceededWarning');
  });

  it('writes the reports marked incomplete when interrupted with SIGINT', async (t) => {
    const { emu } = await own(t);
    // No ERP runs: the session's checks stay pending until the person stops the watch.
    const scratch = homologationScratch();
    const cli = runCli(['homologate', '--observe', '--integration', emu.test.integration_id, '--timeout', '60', '--report-dir', scratch.reports], envFor(emu, scratch));
    await waitForStderr(cli, 'Observing');
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    expect(code).toBe(1);
    expect(cli.stderr()).toMatch(/not certified \(interrupted\)/);
    const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
    expect(report).toMatchObject({ complete: false, interrupted: true, summary: { certified: false } });
    expect(report.checks.some((c: { status: string }) => c.status === 'pending')).toBe(true);
    expect(report.notes.join(' ')).toMatch(/interrupted/);
    const md = readFileSync(join(scratch.reports, 'homologation.md'), 'utf8');
    expect(md).toContain('**incomplete**');
  });

  it('writes the reports with the undecided checks failed when the emulator stops answering mid-session', async (t) => {
    const { emu } = await own(t);
    const scratch = homologationScratch();
    const cli = runCli(['homologate', '--observe', '--integration', emu.test.integration_id, '--timeout', '60', '--report-dir', scratch.reports], envFor(emu, scratch));
    await waitForStderr(cli, 'Observing');
    await emu.close();
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(1);
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
    const report = JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));
    expect(report).toMatchObject({ complete: false, summary: { certified: false, pending: 0 } });
    const failed = report.checks.filter((c: { reason: string }) => /emulator stopped answering/.test(c.reason));
    expect(failed.length).toBeGreaterThan(0);
    expect(report.notes.join(' ')).toMatch(/emulator stopped answering/);
    expect(filesIn(scratch.reports)).toHaveLength(4);
  });

  it('refuses --observe against something that is not an emulator (exit 2), and where nothing answers (exit 1, is it running?)', async () => {
    const scratch = homologationScratch();
    const credential = 'svk_test_abcdefghijklmnopqrstuvwx.svs_test_abcdefghijklmnopqrstuvwxyz0123456789abcd';
    const args = ['homologate', '--observe', '--integration', 'int_01M85J7YBV45TYWZK3J7P64J6X'];
    const other = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('not here'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = other.address() as AddressInfo;
      const r = await runToEnd(args, { ...scratch.env, MERCHANT_KIT_BASE_URL: `http://127.0.0.1:${port}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: credential });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--observe needs an emulator/);
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
    const down = await runToEnd(args, { ...scratch.env, MERCHANT_KIT_BASE_URL: 'http://127.0.0.1:9/sandbox/v1', MERCHANT_KIT_CREDENTIAL: credential });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/no emulator answered at http:\/\/127\.0\.0\.1:9\/sandbox\/v1; is it running\?/);
  });
});
