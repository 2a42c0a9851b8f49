import type { AccessRequestStatusView, AccessRequestView } from '../../src/contract/access-requests.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';
import type { AccessRequestRecord } from './repository.js';

/** A request as the operator lists it: never its digests or its sealed hand-over. */
export function accessRequestView(r: AccessRequestRecord): AccessRequestView {
  return {
    id: r.id,
    status: r.status,
    company: r.company,
    contact_email: r.contactEmail,
    system: r.system,
    reason: r.reason,
    store_id: r.storeId,
    integration_id: r.integrationId,
    created_at: formatDate(r.createdAt),
    decided_at: formatNullableDate(r.decidedAt),
    claimed_at: formatNullableDate(r.claimedAt),
  };
}

/** A request as its integrator follows it; `handOver` only on the first read after approval. */
export function accessRequestStatusView(r: AccessRequestRecord, handOver: { credential: string; store_token: string } | null): AccessRequestStatusView {
  return {
    id: r.id,
    status: r.status,
    reason: r.reason,
    store_id: r.storeId,
    integration_id: r.integrationId,
    credential: handOver?.credential ?? null,
    store_token: handOver?.store_token ?? null,
  };
}
