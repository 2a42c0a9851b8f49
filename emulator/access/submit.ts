import { ACCESS_LIMITS, type AccessRequestCreate, type AccessRequestCreated } from '../../src/contract/access-requests.js';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { rateLimited } from '../http/reply.js';
import { newClaimSecret } from './claim-secret.js';

/** Where access requests live: the sandbox's own environment, where their stores are made. */
export const ACCESS_ENVIRONMENT = 'test' as const;

const FULL = 'El entorno de pruebas tiene demasiadas solicitudes de acceso pendientes; intente más tarde.';

/**
 * DESIGN: POST /_emulator/access-requests — a pending request and its claim secret, shown here once
 * (the sandbox keeps its digest). Checked first, changing nothing when refused: the requests of one IP
 * (spec: Limits, 429 like authentication failures; real minutes, one budget per IP for every process
 * of the sandbox), then the cap on pending requests (429 with a Retry-After on a person's scale).
 */
export async function submitAccessRequest(emulator: Emulator, input: AccessRequestCreate, ip: string): Promise<AccessRequestCreated> {
  const hit = await emulator.storage.coordination.windows.hit('access_requests', ip, emulator.options.guardNow());
  if (!hit.allowed) throw rateLimited(hit.retryAfterSeconds);
  const env = emulator.env(ACCESS_ENVIRONMENT);
  const claim = newClaimSecret();
  const id = env.ids.next('accessRequest');
  const written = await env.store.tx((tx) =>
    tx.accessRequests.insertPending(
      { id, company: input.company, contactEmail: input.contact_email, system: input.system, claimSha256: claim.digest, sealKey: claim.sealKey },
      ACCESS_LIMITS.pendingMax,
      env.clock.now(),
    ),
  );
  if (!written) throw new ApiError('rate_limited', FULL, undefined, { 'Retry-After': String(ACCESS_LIMITS.pendingRetryAfterSeconds) });
  return { id, status: 'pending', claim_secret: claim.secret };
}
