// The vocabulary of the homologation: a check, what it found, and the context it runs in.
// Both the active runner (the CLI as reference integrator) and the emulator's observer grade with it.

/** DESIGN: Homologation — the seven mandatory check ids, in the order they run and are reported. */
export const CHECK_IDS = ['connection', 'catalog', 'order_reception', 'signature_rejection', 'import', 'statuses', 'retries'] as const;

/** Optional checks: shown in every report, never needed for the certificate. */
export const OPTIONAL_CHECK_IDS = ['import_recovery'] as const;

/** Every check id `--only` accepts, in the order they run. */
export const ALL_CHECK_IDS = ['connection', 'catalog', 'order_reception', 'signature_rejection', 'import', 'import_recovery', 'statuses', 'retries'] as const;
export type CheckId = (typeof ALL_CHECK_IDS)[number];

/** `pending`: not decided yet (an observer session still watching, or a run cut short). */
export type CheckStatus = 'pass' | 'fail' | 'skip' | 'pending';

/** Areas group checks into JUnit testsuites and report sections. */
export type CheckArea = 'setup' | 'catalog' | 'orders' | 'webhooks' | 'resilience';

/**
 * One piece of evidence: a call made or observed (request id, status, timing) or a probe, with what
 * was expected and what came. Never a body, a header value or a secret.
 */
export interface Evidence {
  /** What this step was, in a few words ("GET /me", "bad signature probe"). */
  step: string;
  ok: boolean;
  method?: string;
  path?: string;
  status?: number | null;
  request_id?: string | null;
  duration_ms?: number | null;
  idempotency_key?: string | null;
  expected?: string;
  actual?: string;
}

/** What a check found. */
export interface CheckOutcome {
  status: CheckStatus;
  /** One sentence: why it passed, failed, was skipped or is still pending. */
  reason: string;
  evidence: Evidence[];
}

/** A check's result in a report: its definition's fields plus the outcome. */
export interface CheckResult extends CheckOutcome {
  id: string;
  title: string;
  area: CheckArea;
  mandatory: boolean;
  /** The spec rule the check stands for. */
  rule: string;
  duration_ms: number;
}

/** The static part of a check: id, title, area, whether it is mandatory, the spec rule. */
export interface CheckMeta {
  id: CheckId;
  title: string;
  area: CheckArea;
  mandatory: boolean;
  rule: string;
}

export const pass = (reason: string, evidence: Evidence[]): CheckOutcome => ({ status: 'pass', reason, evidence });
export const fail = (reason: string, evidence: Evidence[]): CheckOutcome => ({ status: 'fail', reason, evidence });
export const skip = (reason: string, evidence: Evidence[] = []): CheckOutcome => ({ status: 'skip', reason, evidence });
export const pending = (reason: string, evidence: Evidence[] = []): CheckOutcome => ({ status: 'pending', reason, evidence });
