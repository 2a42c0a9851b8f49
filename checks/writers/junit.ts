import type { HomologationReport } from '../report.js';
import type { CheckArea, CheckResult } from '../types.js';
import { AREA_TITLE, evidenceLine } from './common.js';

export function xmlEscape(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(c: CheckResult): string {
  const attrs = `classname="homologation.${c.area}.${c.id}" name="${xmlEscape(`${c.id}: ${c.title}`)}" time="${seconds(c.duration_ms)}"`;
  const evidence = xmlEscape(c.evidence.map(evidenceLine).join('\n'));
  if (c.status === 'pass') return `    <testcase ${attrs}>\n      <system-out>${evidence}</system-out>\n    </testcase>`;
  if (c.status === 'fail' && c.mandatory) {
    return `    <testcase ${attrs}>\n      <failure message="${xmlEscape(c.reason)}" type="mandatory">${evidence}</failure>\n    </testcase>`;
  }
  // DESIGN: a failed optional check never fails the job, so it is a skipped case saying it failed
  // and why; skipped and undecided checks are "not passed" too: JUnit's skipped, with the reason.
  const message = c.status === 'fail' ? `failed (optional, never blocks the certificate): ${c.reason}` : `${c.status}: ${c.reason}`;
  return `    <testcase ${attrs}>\n      <skipped message="${xmlEscape(message)}"/>\n    </testcase>`;
}

/** Counted as JUnit counts them: a failure is a mandatory check's; an optional one's failure is skipped. */
const failures = (cases: CheckResult[]) => cases.filter((c) => c.status === 'fail' && c.mandatory).length;
const skips = (cases: CheckResult[]) => cases.filter((c) => c.status === 'skip' || c.status === 'pending' || (c.status === 'fail' && !c.mandatory)).length;

/** `homologation.junit.xml`: one testsuite per area, one testcase per check (classname carries the id). */
export function junitReport(report: HomologationReport): string {
  const areas = [...new Set(report.checks.map((c) => c.area))] as CheckArea[];
  const suites = areas.map((area) => {
    const cases = report.checks.filter((c) => c.area === area);
    const time = cases.reduce((t, c) => t + c.duration_ms, 0);
    return [
      `  <testsuite name="homologation.${area}" tests="${cases.length}" failures="${failures(cases)}" errors="0" skipped="${skips(cases)}" time="${seconds(time)}" timestamp="${report.started_at}">`,
      `    <properties><property name="area" value="${xmlEscape(AREA_TITLE[area])}"/></properties>`,
      ...cases.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="merchant-kit homologation" tests="${report.checks.length}" failures="${failures(report.checks)}" errors="0" skipped="${skips(report.checks)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
