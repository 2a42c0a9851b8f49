import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { buildReport, exitCodeOf, summarize } from '../../checks/report.js';
import { junitReport, xmlEscape } from '../../checks/writers/junit.js';
import { markdownReport } from '../../checks/writers/markdown.js';
import { htmlReport } from '../../checks/writers/html.js';
import { terminalReport } from '../../checks/writers/terminal.js';
import { CHECK_IDS, type CheckResult, type CheckStatus } from '../../checks/types.js';
import type { Task } from '../../checks/tasks.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ROOT } from '../helpers/cli.js';

function result(id: string, status: CheckStatus, reason = 'because', mandatory = true): CheckResult {
  return { id, title: `${id} title`, area: 'orders', mandatory, rule: 'spec rule', status, reason, duration_ms: 5, evidence: [{ step: 'GET /me', ok: status === 'pass', method: 'GET', path: '/me', status: 200, request_id: 'req_1' }] };
}
const all = (status: CheckStatus = 'pass') => CHECK_IDS.map((id) => result(id, status));
const report = (checks: CheckResult[], complete = true) =>
  buildReport({ version: '0.0.0', mode: 'automatic', startedAt: new Date(0), complete, target: { base_url: 'http://127.0.0.1:4010/sandbox/v1', environment: 'test', emulator: true }, integration: { id: 'int_x', store_id: 'str_x', store_name: 'Demo' }, checks });
const observedReport = (checks: CheckResult[]) =>
  buildReport({ ...report(checks), version: '0.0.0', mode: 'observer', startedAt: new Date(0), complete: true, intake: 'both', settings: { order_status_authority: 'service', ack_expected: 'after_acceptance' }, checks });

describe('certificate rules', () => {
  it.each([
    ['every mandatory check passed', all(), true, true],
    ['one mandatory check skipped', [...all().slice(0, 6), result('retries', 'skip')], true, false],
    ['one mandatory check failed', [...all().slice(0, 6), result('retries', 'fail')], true, false],
    ['a run cut short', all(), false, false],
    ['only some checks run (--only), all passed', all().slice(0, 2), true, false, 0],
    ['only some checks run (--only), one failed', [result('connection', 'pass'), result('catalog', 'fail')], true, false, 1],
    ['only some checks run (--only), cut short', all().slice(0, 2), false, false, 1],
    ['every mandatory check passed, the optional one failed', [...all(), result('import_recovery', 'fail', 'open', false)], true, true, 0],
    ['only some checks run (--only), the optional one failed', [result('connection', 'pass'), result('import_recovery', 'fail', 'open', false)], true, false, 0],
  ])('%s → certified %s', (_name, checks, complete, certified, exit = certified ? 0 : 1) => {
    expect(summarize(checks as CheckResult[], complete as boolean).certified).toBe(certified);
    expect(exitCodeOf(report(checks as CheckResult[], complete as boolean))).toBe(exit);
  });
});

describe('secrets never reach a report', () => {
  it('masks credentials, signing secrets and bearer values in reasons, evidence and notes', () => {
    const leaky = result('connection', 'fail', 'sent Bearer svk_test_abc.svs_test_SECRETSECRET and whsec_SIGNINGSECRET');
    leaky.evidence[0]!.actual = 'svs_live_TOPSECRET';
    const text = JSON.stringify(report([leaky]));
    expect(text).not.toMatch(/SECRETSECRET|SIGNINGSECRET|TOPSECRET/);
  });
});

describe('writers', () => {
  it('JUnit: escapes XML and parses back with a failure carrying the evidence', () => {
    const bad = result('import', 'fail', 'got <409> & "retried"');
    const xml = junitReport(report([result('connection', 'pass'), bad]));
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const cases = [parsed.testsuites.testsuite].flat().flatMap((s: { testcase: unknown }) => [s.testcase].flat()) as { classname: string; failure?: { message: string; '#text': string } }[];
    const failure = cases.find((c) => c.classname.endsWith('.import'))!.failure!;
    expect(failure.message).toBe('got <409> & "retried"');
    expect(failure['#text']).toContain('GET /me');
    expect(xmlEscape('a\u0001<b>')).toBe('a&lt;b&gt;');
  });

  it('Markdown: one row per check, pipes escaped, failures with their evidence', () => {
    const md = markdownReport(report([result('connection', 'pass'), result('import', 'fail', 'a | b')]));
    expect(md).toContain('| ❌ | `import` import title | yes | FAIL | a \\| b |');
    expect(md).toContain('<details><summary><code>import</code> evidence</summary>');
  });

  it('HTML: escapes text and shows the certificate only for an observed ERP that is certified', () => {
    const html = htmlReport(report([{ ...result('connection', 'fail'), reason: '<script>alert(1)</script>' }]), 'f'.repeat(64));
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('id="certificate"');
    expect(htmlReport(observedReport(all()), 'a'.repeat(64))).toContain(`id="cert-sha256">${'a'.repeat(64)}<`);
    expect(htmlReport(observedReport(all()), 'a'.repeat(64))).toContain('<dd id="cert-intake">Intake: both · order_status_authority: service · ack_expected: after_acceptance</dd>');
  });

  it('says "Reference run passed" for an automatic run, with no certificate box: a certificate is only for an observed ERP', () => {
    const automatic = report(all());
    expect(automatic.summary.certified).toBe(true);
    expect(terminalReport(automatic)).toContain('Reference run passed: 7/7 checks passed.');
    expect(terminalReport(automatic)).not.toMatch(/Certified/);
    expect(markdownReport(automatic)).toContain('**Reference run passed**: 7/7 checks passed.');
    const html = htmlReport(automatic, 'a'.repeat(64));
    expect(html).not.toContain('id="certificate"');
    expect(html).toContain('<p class="verdict ok" id="verdict">Reference run passed: 7/7 checks passed.</p>');
    expect(terminalReport(report(all('fail')))).toContain('Reference run failed: 0 passed, 7 failed');
  });

  it('terminal: a line per check, the intake and settings of an observed ERP, and the verdict', () => {
    const text = terminalReport(observedReport(all()));
    expect(text.split('\n').filter((l) => l.startsWith('PASS'))).toHaveLength(7);
    expect(text.split('\n')[1]).toBe('Intake: both · order_status_authority: service · ack_expected: after_acceptance');
    expect(text).toContain('Certified: 7/7 checks passed.');
    expect(text).not.toContain('Your steps');
    expect(markdownReport(observedReport(all()))).toContain('\nIntake: both · order_status_authority: service · ack_expected: after_acceptance\n');
  });

  it('a failed optional check changes neither the verdict nor the exit code, and JUnit skips it saying it failed and why', () => {
    const r = observedReport([...all(), result('import_recovery', 'fail', 'tasks still open: tsk_4', false)]);
    expect(exitCodeOf(r)).toBe(0);
    expect(terminalReport(r)).toContain('Certified: 7/8 checks passed. Optional import_recovery failed (optional checks never block the certificate).');
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junitReport(r));
    expect(parsed.testsuites).toMatchObject({ tests: '8', failures: '0', skipped: '1' });
    const cases = [parsed.testsuites.testsuite].flat().flatMap((s: { testcase: unknown }) => [s.testcase].flat()) as { classname: string; failure?: unknown; skipped?: { message: string } }[];
    const optional = cases.find((c) => c.classname.endsWith('.import_recovery'))!;
    expect(optional.failure).toBeUndefined();
    expect(optional.skipped!.message).toBe('failed (optional, never blocks the certificate): tasks still open: tsk_4');
  });
});

describe('writers: the person\'s steps and who ran', () => {
  const tasks: Task[] = [
    { id: 'tsk_1', action: 'reject_order', order_id: 'ord_1', instruction: 'Reject order #4 (ord_1) from your ERP with a reason.', status: 'done', reason: 'rejected with a reason: POST /orders/ord_1/status (req_9)' },
    { id: 'tsk_2', action: 'cancel_order', order_id: 'ord_2', instruction: 'Accept order #5 (ord_2) from your ERP, then cancel it | with a reason.', status: 'open', reason: null },
    { id: 'tsk_3', action: 'mark_unavailable', external_id: 'erp-classic', instruction: 'Mark product <b> sold out.', status: 'failed', reason: 'removed from the menu: DELETE /catalog/products/erp-classic (req_7)' },
  ];
  const observed = (mode: 'observer' | 'automatic' = 'observer') =>
    buildReport({
      version: '0.0.0', mode, startedAt: new Date(0), complete: true, target: { base_url: 'http://127.0.0.1:4010/sandbox/v1', environment: 'test', emulator: true }, integration: { id: 'int_x', store_id: 'str_x', store_name: 'Demo' }, checks: all(), tasks,
      ...(mode === 'observer' ? { intake: 'webhook' as const, settings: { order_status_authority: 'both' as const, ack_expected: 'on_receipt' as const } } : {}),
    });

  it('validates against docs/homologation-report.schema.json, tasks included', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'homologation-report.schema.json'), 'utf8')));
    expect(validate(observed()), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...observed(), tasks: [{ ...tasks[0], status: 'maybe' }] })).toBe(false);
    expect(validate({ ...observed(), tasks: [{ ...tasks[0], order_id: undefined }] })).toBe(false);
    // An observed run names its intake and settings; no other run does.
    expect(validate(observed('automatic')), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...observed(), intake: undefined })).toBe(false);
    expect(validate({ ...observed(), intake: 'pigeon' })).toBe(false);
    expect(validate({ ...observed(), settings: { order_status_authority: 'both' } })).toBe(false);
    expect(validate({ ...observed('automatic'), intake: 'webhook' })).toBe(false);
  });

  it('Markdown: a "Your steps" list with each task\'s state and reason', () => {
    const md = markdownReport(observed());
    expect(md).toContain('## Your steps\n\n- ✅ **DONE** `tsk_1` reject_order: Reject order #4 (ord_1) from your ERP with a reason. — rejected with a reason: POST /orders/ord_1/status (req_9)');
    expect(md).toContain('- ⏳ **OPEN** `tsk_2` cancel_order: Accept order #5 (ord_2) from your ERP, then cancel it \\| with a reason.');
    expect(md).toContain('- ❌ **FAILED** `tsk_3`');
    expect(md).toContain('Run by your ERP (integration int_x), graded from its own calls.');
  });

  it('HTML: the tasks with their state, escaped', () => {
    const html = htmlReport(observed(), 'a'.repeat(64));
    expect(html).toContain('<h2>Your steps</h2>');
    expect(html).toContain('<li data-task="tsk_2" data-status="open">');
    expect(html).toContain('Mark product &lt;b&gt; sold out.');
    expect(html).not.toContain('<b> sold out');
  });

  it('terminal: your steps, and an automatic run says it is the reference integrator, not the user\'s ERP', () => {
    const text = terminalReport(observed());
    expect(text).toContain('Your steps:\n  DONE tsk_1 reject_order: Reject order #4');
    expect(text).toContain('  OPEN tsk_2 cancel_order:');
    expect(terminalReport(observed('automatic'))).toContain("Run by merchant-kit's reference integrator, not your ERP (only an observed run, homologate --observe, certifies an ERP).");
    expect(htmlReport(observed('automatic'), 'a'.repeat(64))).toContain('<p id="subject">Run by merchant-kit&#39;s reference integrator, not your ERP');
    expect(htmlReport(observed(), 'a'.repeat(64))).toContain('<p id="cert-subject">Run by your ERP (integration int_x), graded from its own calls.</p>');
  });
});
