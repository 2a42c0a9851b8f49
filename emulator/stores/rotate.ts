import type { EnvContext } from '../context.js';
import { issueCredential } from './credentials.js';
import { formatNullableDate } from '../../src/contract/dates.js';

/**
 * spec: Authentication 8 — rotation in the panel: a new credential, and every other credential of
 * the integration that is not revoked expires after the overlap (0 ends it at once). An earlier
 * expiry already set is kept.
 */
export async function rotateCredential(env: EnvContext, integrationId: string, overlapHours: number) {
  const now = env.clock.now();
  const issued = issueCredential(env.name);
  const expiresAt = now + overlapHours * 3600_000;
  const previous = await env.store.tx(async (tx) => {
    await tx.credentials.insert(issued.keyId, integrationId, issued.digest, now);
    await tx.credentials.expireOthers(integrationId, issued.keyId, expiresAt);
    return (await tx.credentials.notRevoked(integrationId)).filter((c) => c.keyId !== issued.keyId);
  });
  return {
    integration_id: integrationId,
    key_id: issued.keyId,
    // DESIGN: the control API shows the full credential, as the panel does once.
    credential: issued.full,
    overlap_hours: overlapHours,
    previous: previous.map((c) => ({ key_id: c.keyId, expires_at: formatNullableDate(c.expiresAt) })),
  };
}
