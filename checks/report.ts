import { redactSecrets } from '../src/logging/redact.js';
import type { Task } from './tasks.js';
import type { ReportCertificate } from '../src/contract/certificates.js';
import type { Intake, SessionSettings } from './intake.js';
import { CHECK_IDS, type CheckResult, type Evidence } from './types.js';

/**
 * The JSON report's version (docs/homologation-report.schema.json): the major number on an
 * incompatible change, the minor on an addition (1.1: `tasks` and optional checks; 1.2: the sandbox's
 * `certificate`, an observed run's `intake` and `settings`, and the mode `unreachable`).
 */
export const REPORT_SCHEMA_VERSION = '1.2';

/** How the report was filled; `unreachable`: nothing answered at the base URL, so no check could run. */
export type ReportMode = 'automatic' | 'interactive' | 'non_interactive' | 'observer' | 'unreachable';

export interface ReportTarget {
  /** The API base URL (no credential in it). */
  base_url: string;
  environment: 'test' | 'live' | null;
  emulator: boolean;
}

export interface ReportIntegration {
  id: string | null;
  store_id: string | null;
  store_name: string | null;
}

export interface ReportSummary {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  pending: number;
  /** Every mandatory check passed and the run is complete: the certificate is issued. */
  certified: boolean;
}

/** The JSON report (`homologation.json`); the observer's GET answers the same shape. */
export interface HomologationReport {
  schema_version: string;
  tool: { name: 'merchant-kit'; version: string };
  mode: ReportMode;
  generated_at: string;
  started_at: string;
  /** False while an observer session still watches, or when a run was interrupted or cut short. */
  complete: boolean;
  interrupted: boolean;
  target: ReportTarget;
  integration: ReportIntegration;
  summary: ReportSummary;
  checks: CheckResult[];
  /** The person's steps of an observed session (DESIGN: Tasks); empty for other runs. */
  tasks: Task[];
  /** An observed run only: how the ERP takes orders in (checks/intake.ts). */
  intake?: Intake;
  /** An observed run only: the integration settings it was graded under. */
  settings?: SessionSettings;
  /** Plain sentences for the reader: steps skipped and why, how the run ended. */
  notes: string[];
  /**
   * The test environment's certificate of a certified observed session (1.2): a compact JWS over the
   * report's SHA-256 without this member (docs/homologation.md, The certificate). Absent otherwise.
   */
  certificate?: ReportCertificate;
}

export interface ReportInput {
  version: string;
  mode: ReportMode;
  startedAt: Date;
  now?: Date;
  complete: boolean;
  interrupted?: boolean;
  target: ReportTarget;
  integration: ReportIntegration;
  checks: CheckResult[];
  tasks?: Task[];
  intake?: Intake;
  settings?: SessionSettings;
  notes?: string[];
}

export function summarize(checks: CheckResult[], complete: boolean): ReportSummary {
  const count = (s: string) => checks.filter((c) => c.status === s).length;
  const mandatory = checks.filter((c) => c.mandatory);
  return {
    total: checks.length,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
    pending: count('pending'),
    // DESIGN: a skipped mandatory check means no certificate; so does an incomplete run, and so does
    // a run of only some checks (--only): each of the seven mandatory ids must be there and pass.
    certified:
      complete &&
      mandatory.every((c) => c.status === 'pass') &&
      CHECK_IDS.every((id) => checks.some((c) => c.id === id && c.status === 'pass')),
  };
}

/** Evidence texts pass through the secret masks: a message quoting a credential never reaches a file. */
function cleanEvidence(e: Evidence): Evidence {
  const out: Evidence = { ...e };
  for (const key of ['step', 'path', 'expected', 'actual', 'idempotency_key'] as const) {
    const v = out[key];
    if (typeof v === 'string') out[key] = redactSecrets(v);
  }
  return out;
}

/**
 * The report of a run: secrets masked in every text, the summary and the certificate decided.
 * @example
 * const report = buildReport({ version, mode: 'automatic', startedAt, complete: true, target, integration, checks: results });
 */
export function buildReport(input: ReportInput): HomologationReport {
  const checks = input.checks.map((c) => ({ ...c, reason: redactSecrets(c.reason), evidence: c.evidence.map(cleanEvidence) }));
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    tool: { name: 'merchant-kit', version: input.version },
    mode: input.mode,
    generated_at: (input.now ?? new Date()).toISOString(),
    started_at: input.startedAt.toISOString(),
    complete: input.complete,
    interrupted: input.interrupted ?? false,
    target: input.target,
    integration: input.integration,
    summary: summarize(checks, input.complete),
    checks,
    tasks: (input.tasks ?? []).map((t) => ({ ...t, instruction: redactSecrets(t.instruction), reason: t.reason === null ? null : redactSecrets(t.reason) })),
    ...(input.intake ? { intake: input.intake } : {}),
    ...(input.settings ? { settings: { ...input.settings } } : {}),
    notes: [...(input.notes ?? []), ...notRun(checks)].map(redactSecrets),
  };
}

/** A note naming the mandatory checks a partial run (--only) left out: no certificate without them. */
function notRun(checks: CheckResult[]): string[] {
  const missing = CHECK_IDS.filter((id) => !checks.some((c) => c.id === id));
  return missing.length ? [`Not run (a certificate needs every mandatory check): ${missing.join(', ')}.`] : [];
}

/** A run of some checks only (`--only`): a mandatory one was left out, so it never certifies. */
export function selectedOnly(report: Pick<HomologationReport, 'checks'>): boolean {
  return CHECK_IDS.some((id) => !report.checks.some((c) => c.id === id));
}

/**
 * Exit code of a run: 0 when every mandatory check passed (the certificate), or when a run of some
 * checks (`--only`) completed with every selected mandatory check passed; 1 otherwise. DESIGN:
 * optional checks never change the exit code.
 */
export function exitCodeOf(report: HomologationReport): 0 | 1 {
  if (report.summary.certified) return 0;
  const passed = report.checks.length > 0 && report.checks.every((c) => c.status === 'pass' || !c.mandatory);
  return selectedOnly(report) && report.complete && passed ? 0 : 1;
}
