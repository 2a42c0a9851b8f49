import { exitCodeOf, type HomologationReport } from '../report.js';
import type { Task, TaskStatus } from '../tasks.js';
import type { CheckArea, CheckStatus, Evidence } from '../types.js';

export const STATUS_LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', pending: 'PENDING' };

export const AREA_TITLE: Record<CheckArea, string> = {
  setup: 'Connection',
  catalog: 'Catalog',
  orders: 'Orders',
  webhooks: 'Webhooks',
  resilience: 'Resilience',
};

/** One line per piece of evidence: "GET /me → 200 (12 ms, req_…) expected 200". */
export function evidenceLine(e: Evidence): string {
  const parts: string[] = [e.ok ? '[ok]' : '[x]', e.step];
  const call = [e.method, e.path].filter(Boolean).join(' ');
  if (call && call !== e.step) parts.push(`(${call})`);
  if (e.status !== undefined) parts.push(`→ ${e.status === null ? 'no answer' : e.status}`);
  const extra = [
    e.duration_ms != null ? `${e.duration_ms} ms` : null,
    e.request_id ? e.request_id : null,
    e.idempotency_key ? `key ${e.idempotency_key}` : null,
  ].filter(Boolean);
  if (extra.length) parts.push(`[${extra.join(', ')}]`);
  if (e.expected !== undefined) parts.push(`expected: ${e.expected}`);
  if (e.actual !== undefined) parts.push(`got: ${e.actual}`);
  return parts.join(' ');
}

/**
 * Whose run the verdict is about. An automatic run is merchant-kit's own reference integrator
 * (issue: it must never read as the user's ERP being certified); only an observed run grades an ERP.
 */
export function whoRan(report: HomologationReport): string {
  if (report.mode === 'observer') return `your ERP (integration ${report.integration.id ?? 'unknown'}), graded from its own calls`;
  if (report.mode === 'automatic') return "merchant-kit's reference integrator, not your ERP (only an observed run, homologate --observe, certifies an ERP)";
  if (report.mode === 'unreachable') return `nobody: nothing answered at ${report.target.base_url}`;
  return "merchant-kit's reference integrator against a real environment, not your ERP";
}

export const TASK_LABEL: Record<TaskStatus, string> = { open: 'OPEN', done: 'DONE', failed: 'FAILED' };

/** One line per task: "DONE tsk_1 reject_order: Reject order #4 … (rejected with a reason: POST …)". */
export function taskLine(t: Task): string {
  return `${TASK_LABEL[t.status]} ${t.id} ${t.action}: ${t.instruction}${t.reason ? ` (${t.reason})` : ''}`;
}

/** An observed run's intake and settings in one line: "Intake: webhook · order_status_authority: both · ack_expected: on_receipt". */
export function intakeText(report: HomologationReport): string | null {
  if (!report.intake || !report.settings) return null;
  return `Intake: ${report.intake} · order_status_authority: ${report.settings.order_status_authority} · ack_expected: ${report.settings.ack_expected}`;
}

/** What became of the optional checks that did not pass, for a verdict that stands without them. */
function optionalNote(report: HomologationReport): string {
  const off = report.checks.filter((c) => !c.mandatory && c.status === 'fail');
  return off.length ? ` Optional ${off.map((c) => c.id).join(', ')} failed (optional checks never block the certificate).` : '';
}

/**
 * The verdict in one sentence. DESIGN: a certificate is only for an observed ERP; the automatic run
 * is the reference integrator's ("Reference run passed"); `--only` runs never certify.
 */
export function verdictText(report: HomologationReport): string {
  const s = report.summary;
  if (report.mode === 'unreachable') return `Not run: nothing answered at ${report.target.base_url}.`;
  if (s.certified && report.mode === 'observer') return `Certified: ${s.passed}/${s.total} checks passed.${optionalNote(report)}`;
  if (s.certified) return `Reference run passed: ${s.passed}/${s.total} checks passed.${optionalNote(report)}`;
  if (exitCodeOf(report) === 0) return `Selected checks passed: ${s.passed}/${s.total}. A run of some checks (--only) never certifies.${optionalNote(report)}`;
  const what = report.mode === 'automatic' ? 'Reference run failed' : 'Not certified';
  return `${what}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.pending} pending.${report.complete ? '' : ' Incomplete run.'}`;
}

/** The issuer a certificate names (its payload's `iss`), read without verifying: where its keys are published. */
export function certificateIssuer(jws: string): string | null {
  try {
    const iss = (JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown }).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

/** The command that verifies a report's certificate against its issuer's published keys. */
export function verifyCommand(jws: string): string {
  const issuer = certificateIssuer(jws) ?? 'https://<the test environment>';
  return `npx merchant-kit certificate verify homologation.json --keys ${issuer}/_emulator/certificates/keys`;
}
