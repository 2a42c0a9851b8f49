import type { AccessRequestStatusView } from '../../src/contract/access-requests.js';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { rateLimited } from '../http/reply.js';
import { claimPrivateKey, claimSecretMatches } from './claim-secret.js';
import { accessRequestStatusView } from './present.js';
import { open } from './seal.js';
import { ACCESS_ENVIRONMENT } from './submit.js';

/** The same answer for an unknown id and a wrong secret: which of the two is never revealed (spec: 404 not_found). */
const NOT_FOUND = 'No existe esa solicitud de acceso, o el secreto no es el suyo.';

/**
 * DESIGN: GET /_emulator/access-requests/{id} with `Authorization: Bearer mkc_…` — the request as its
 * integrator follows it. The first read after approval takes the sealed credential and store token
 * (once, whichever process serves it) and opens them with the claim secret; every later read shows
 * them null. A wrong or missing secret counts against the IP's budget of wrong tokens (30 a minute for
 * the whole sandbox, as the control API's tokens) and answers as an unknown id.
 */
export async function readAccessRequest(emulator: Emulator, id: string, secret: string | undefined, ip: string): Promise<AccessRequestStatusView> {
  const windows = emulator.storage.coordination.windows;
  const now = emulator.options.guardNow();
  if (await windows.exhausted('admin_failures', ip, now)) throw rateLimited((await windows.hit('admin_failures', ip, now)).retryAfterSeconds);
  const env = emulator.env(ACCESS_ENVIRONMENT);
  const request = await env.store.accessRequests.byId(id);
  if (!request || !claimSecretMatches(secret, request.claimSha256)) {
    const hit = await windows.hit('admin_failures', ip, now);
    throw hit.allowed ? ApiError.of('not_found', undefined, NOT_FOUND) : rateLimited(hit.retryAfterSeconds);
  }
  if (request.status !== 'approved' || request.claimedAt !== null) return accessRequestStatusView(request, null);
  const sealed = await env.store.accessRequests.takeSealed(id, env.clock.now());
  if (!sealed) return accessRequestStatusView(request, null);
  const handOver = JSON.parse(open(sealed, claimPrivateKey(secret!), id).toString('utf8')) as { credential: string; store_token: string };
  return accessRequestStatusView(request, handOver);
}
