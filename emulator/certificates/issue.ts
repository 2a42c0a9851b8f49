import { CERTIFICATE_TYP, type CertificatePayload, type GradedSettings, type Intake, type ReportCertificate } from '../../src/contract/certificates.js';
import { reportSha256 } from '../../src/certificates/report-digest.js';
import { signCompact } from '../../src/certificates/jws.js';
import type { HomologationReport } from '../../checks/report.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { newSigningKey, privateKeyOf } from './keys.js';

/** A report and the certificate it earned. */
export type CertifiedReport = HomologationReport & { certificate: ReportCertificate };

/** The issuer a certificate names: the sandbox's public URL (`--public-url`), else this process's own. */
export function issuerOf(emulator: Emulator): string {
  return emulator.options.publicUrl ?? emulator.publicUrl;
}

/** The certificate of an observed session, if it was issued: the report as certified, with it. */
export async function certifiedSession(emulator: Emulator, integrationId: string, sessionStartedAt: number): Promise<CertifiedReport | undefined> {
  const found = await emulator.storage.certificates.bySession(integrationId, sessionStartedAt);
  return found ? { ...(JSON.parse(found.report) as HomologationReport), certificate: { id: found.id, jws: found.jws } } : undefined;
}

export interface Certification {
  env: EnvContext;
  integrationId: string;
  storeId: string;
  sessionStartedAt: number;
  /** How the ERP was graded (the observer says: checks/intake.ts, in its report). */
  intake: Intake;
  settings: GradedSettings;
  /** The observer's report, certified (every mandatory check passed, complete). */
  report: HomologationReport;
}

/**
 * DESIGN: a certified observed session earns a certificate — a compact JWS signed with the sandbox's
 * current key over who and what was certified and the SHA-256 of the report (without its certificate,
 * canonical JSON). One per session: when two processes certify the same session at once, the first
 * kept is the one both answer, and the report it digests is the one every later read shows.
 */
export async function certify(emulator: Emulator, c: Certification): Promise<CertifiedReport> {
  const ledger = emulator.storage.certificates;
  const already = await certifiedSession(emulator, c.integrationId, c.sessionStartedAt);
  if (already) return already;
  const integration = (await c.env.store.integrations.byId(c.integrationId))!;
  const key = await ledger.currentKey(() => newSigningKey());
  const id = c.env.ids.next('certificate');
  const digest = reportSha256(c.report);
  const now = Date.now();
  const payload: CertificatePayload = {
    iss: issuerOf(emulator),
    sub: c.integrationId,
    store_id: c.storeId,
    system: integration.system,
    environment: c.env.name,
    intake: c.intake,
    settings: c.settings,
    checks: c.report.checks.filter((check) => check.status === 'pass').map((check) => check.id),
    report_sha256: digest,
    iat: Math.floor(now / 1000),
    jti: id,
  };
  const jws = signCompact({ alg: 'EdDSA', kid: key.kid, typ: CERTIFICATE_TYP }, payload, privateKeyOf(key));
  const kept = await ledger.issue({
    id, integrationId: c.integrationId, storeId: c.storeId, system: integration.system, environment: c.env.name, sessionStartedAt: c.sessionStartedAt,
    kid: key.kid, jws, report: JSON.stringify(c.report), reportSha256: digest, issuedAt: now, revokedAt: null,
  });
  return { ...(JSON.parse(kept.report) as HomologationReport), certificate: { id: kept.id, jws: kept.jws } };
}
