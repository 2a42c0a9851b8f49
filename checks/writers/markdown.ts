import type { HomologationReport } from '../report.js';
import { evidenceLine, intakeText, STATUS_LABEL, TASK_LABEL, verdictText, verifyCommand, whoRan } from './common.js';

const ICON = { pass: '✅', fail: '❌', skip: '⏭️', pending: '⏳' } as const;
const TASK_ICON = { done: '✅', failed: '❌', open: '⏳' } as const;

/** Table cells: no pipes or newlines. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** `homologation.md`: a summary for CI step summaries ($GITHUB_STEP_SUMMARY). */
export function markdownReport(report: HomologationReport): string {
  // "**Certified**: 8/8 checks passed." — the verdict's first words in bold.
  const text = verdictText(report).replace(/ Incomplete run\.$/, ' The run is **incomplete**.');
  const colon = text.indexOf(':');
  const verdict = colon > 0 ? `**${text.slice(0, colon)}**${text.slice(colon)}` : `**${text}**`;
  const intake = intakeText(report);
  const lines = [
    '# Homologation report',
    '',
    verdict,
    '',
    `Target: \`${report.target.base_url}\` (${report.target.environment ?? 'unknown'} environment${report.target.emulator ? ', emulator' : ''}) · mode: ${report.mode} · integration: \`${report.integration.id ?? 'unknown'}\` · ${report.generated_at}`,
    '',
    ...(intake ? [intake, ''] : []),
    `Run by ${whoRan(report)}.`,
    '',
    ...(report.certificate
      ? [`Certificate \`${report.certificate.id}\`, signed by the test environment. Verify it: \`${verifyCommand(report.certificate.jws)}\``, '']
      : []),
    '| | Check | Mandatory | Result | Reason |',
    '|---|---|---|---|---|',
    ...report.checks.map((c) => `| ${ICON[c.status]} | \`${c.id}\` ${cell(c.title)} | ${c.mandatory ? 'yes' : 'no'} | ${STATUS_LABEL[c.status]} | ${cell(c.reason)} |`),
    '',
  ];
  if (report.tasks.length) {
    lines.push('## Your steps', '');
    for (const t of report.tasks) lines.push(`- ${TASK_ICON[t.status]} **${TASK_LABEL[t.status]}** \`${t.id}\` ${t.action}: ${cell(t.instruction)}${t.reason ? ` — ${cell(t.reason)}` : ''}`);
    lines.push('');
  }
  const notPassed = report.checks.filter((c) => c.status === 'fail');
  for (const c of notPassed) {
    lines.push(`<details><summary><code>${c.id}</code> evidence</summary>`, '', ...c.evidence.map((e) => `- ${cell(evidenceLine(e))}`), '', '</details>', '');
  }
  if (report.notes.length) lines.push('Notes:', '', ...report.notes.map((n) => `- ${cell(n)}`), '');
  return lines.join('\n');
}
