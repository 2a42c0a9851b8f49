import type { CertificateView } from '../../src/contract/certificates.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';
import type { CertificateRecord } from './repository.js';

/** A certificate as the operator lists it (its token is public; its report stays with it). */
export function certificateView(c: CertificateRecord): CertificateView {
  return {
    id: c.id,
    integration_id: c.integrationId,
    store_id: c.storeId,
    system: c.system,
    environment: c.environment,
    kid: c.kid,
    report_sha256: c.reportSha256,
    issued_at: formatDate(c.issuedAt),
    revoked_at: formatNullableDate(c.revokedAt),
    jws: c.jws,
  };
}
