import type { AccessRequestView } from '../../src/contract/access-requests.js';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { provisionStoreIn } from '../stores/provision.js';
import { newStoreToken } from '../stores/store-token.js';
import { accessRequestView } from './present.js';
import { seal } from './seal.js';
import { ACCESS_ENVIRONMENT } from './submit.js';

const UNKNOWN = 'No existe esa solicitud de acceso.';

/** A request decided already: 409 with its status (the spec's state error shape). */
function decidedAlready(status: string): ApiError {
  return ApiError.of('invalid_status_transition', { current_status: status }, 'La solicitud de acceso ya fue decidida.');
}

/**
 * DESIGN: POST /_emulator/access-requests/{id}/approve — the integrator's test store and integration,
 * made as POST /_emulator/stores makes them (all scopes, `erp_managed`, a store token), named after
 * the request; its credential and store token sealed for the integrator's first read. One unit of
 * work: a request approved twice at once (two operators, two processes) makes one store; the second
 * answers 409 and its store is never written.
 */
export async function approveAccessRequest(emulator: Emulator, id: string): Promise<AccessRequestView> {
  const env = emulator.env(ACCESS_ENVIRONMENT);
  const request = await env.store.accessRequests.byId(id);
  if (!request) throw ApiError.of('not_found', undefined, UNKNOWN);
  if (request.status !== 'pending') throw decidedAlready(request.status);
  const token = newStoreToken();
  await env.store.tx(async (tx) => {
    const made = await provisionStoreIn(tx, env, { name: request.company, system: request.system, tokenDigest: token.digest });
    const handOver = Buffer.from(JSON.stringify({ credential: made.credential.full, store_token: token.token }), 'utf8');
    const approved = await tx.accessRequests.approve(id, { storeId: made.storeId, integrationId: made.integrationId, sealed: seal(handOver, request.sealKey, id) }, env.clock.now());
    if (!approved) throw decidedAlready((await tx.accessRequests.byId(id))?.status ?? 'approved');
  });
  return accessRequestView((await env.store.accessRequests.byId(id))!);
}

/** DESIGN: POST /_emulator/access-requests/{id}/deny `{reason}` — the integrator reads the reason. */
export async function denyAccessRequest(emulator: Emulator, id: string, reason: string): Promise<AccessRequestView> {
  const env = emulator.env(ACCESS_ENVIRONMENT);
  const request = await env.store.accessRequests.byId(id);
  if (!request) throw ApiError.of('not_found', undefined, UNKNOWN);
  if (!(await env.store.accessRequests.deny(id, reason, env.clock.now()))) {
    throw decidedAlready((await env.store.accessRequests.byId(id))?.status ?? request.status);
  }
  return accessRequestView((await env.store.accessRequests.byId(id))!);
}
