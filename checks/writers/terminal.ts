import { exitCodeOf, type HomologationReport } from '../report.js';
import type { CheckResult } from '../types.js';
import { evidenceLine, intakeText, STATUS_LABEL, taskLine, verdictText, whoRan } from './common.js';

export interface Painter {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const PLAIN: Painter = { green: (s) => s, red: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s };

/** One line for a decided check (also the live progress line). */
export function checkLine(c: Pick<CheckResult, 'id' | 'title' | 'status' | 'reason'>, paint: Painter = PLAIN): string {
  const label = STATUS_LABEL[c.status].padEnd(7);
  const colour = c.status === 'pass' ? paint.green : c.status === 'fail' ? paint.red : paint.yellow;
  return `${colour(label)} ${c.id.padEnd(20)} ${c.reason}`;
}

/** The verdict alone, coloured (printed when the terminal summary is not asked for). */
export function verdictLine(report: HomologationReport, paint: Painter = PLAIN): string {
  return (exitCodeOf(report) === 0 ? paint.green : paint.red)(paint.bold(verdictText(report)));
}

/** The terminal summary: a line per check, the evidence of failures, the verdict. */
export function terminalReport(report: HomologationReport, paint: Painter = PLAIN, verbose = false): string {
  const lines = [paint.bold(`Homologation against ${report.target.base_url} (${report.mode})`)];
  const intake = intakeText(report);
  if (intake) lines.push(intake);
  for (const c of report.checks) {
    lines.push(checkLine(c, paint));
    if (c.status === 'fail' || verbose) for (const e of c.evidence) lines.push(paint.dim(`          ${evidenceLine(e)}`));
  }
  if (report.tasks.length) lines.push(paint.bold('Your steps:'));
  for (const t of report.tasks) lines.push((t.status === 'done' ? paint.green : t.status === 'failed' ? paint.red : paint.yellow)(`  ${taskLine(t)}`));
  for (const n of report.notes) lines.push(paint.yellow(`note: ${n}`));
  lines.push(verdictLine(report, paint));
  lines.push(paint.dim(`Run by ${whoRan(report)}.`));
  return lines.join('\n');
}
