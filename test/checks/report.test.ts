import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { buildReport, exitCodeOf, summarize } from '../../checks/report.js';
import { junitReport, xmlEscape } from '../../checks/writers/junit.js';
import { markdownReport } from '../../checks/writers/markdown.js';
import { htmlReport } from '../../checks/writers/html.js';
import { terminalReport } from '../../checks/writers/terminal.js';
import { CHECK_IDS, type CheckResult, type CheckStatus } from '../../checks/types.js';

function result(id: string, status: CheckStatus, reason = 'because', mandatory = true): CheckResult {
  return { id, title: `${id} title`, area: 'orders', mandatory, rule: 'spec rule', status, reason, duration_ms: 5, evidence: [{ step: 'GET /me', ok: status === 'pass', method: 'GET', path: '/me', status: 200, request_id: 'req_1' }] };
}
const all = (status: CheckStatus = 'pass') => CHECK_IDS.map((id) => result(id, status));
const report = (checks: CheckResult[], complete = true) =>
  buildReport({ version: '0.0.0', mode: 'automatic', startedAt: new Date(0), complete, target: { base_url: 'http://127.0.0.1:4010/sandbox/v1', environment: 'test', emulator: true }, integration: { id: 'int_x', store_id: 'str_x', store_name: 'Demo' }, checks });

describe('certificate rules', () => {
  it.each([
    ['every mandatory check passed', all(), true, true],
    ['one mandatory check skipped', [...all().slice(0, 6), result('retries', 'skip')], true, false],
    ['one mandatory check failed', [...all().slice(0, 6), result('retries', 'fail')], true, false],
    ['a run cut short', all(), false, false],
    ['only some checks run (--only)', all().slice(0, 2), true, false],
  ])('%s → certified %s', (_name, checks, complete, certified) => {
    expect(summarize(checks as CheckResult[], complete as boolean).certified).toBe(certified);
    expect(exitCodeOf(report(checks as CheckResult[], complete as boolean))).toBe(certified ? 0 : 1);
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

  it('HTML: escapes text and shows the certificate only when certified', () => {
    const html = htmlReport(report([{ ...result('connection', 'fail'), reason: '<script>alert(1)</script>' }]), 'f'.repeat(64));
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('id="certificate"');
    expect(htmlReport(report(all()), 'a'.repeat(64))).toContain(`id="cert-sha256">${'a'.repeat(64)}<`);
  });

  it('terminal: a line per check and the verdict', () => {
    const text = terminalReport(report(all()));
    expect(text.split('\n').filter((l) => l.startsWith('PASS'))).toHaveLength(7);
    expect(text).toContain('Certified: 7/7 checks passed.');
  });
});
