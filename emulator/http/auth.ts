import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { CredentialRow } from '../data/credentials.js';
import type { IntegrationRecord } from '../data/integrations.js';
import type { StoreRecord } from '../data/stores.js';
import { parseAuthorization, secretMatches } from '../auth/credentials.js';

export interface AuthContext {
  integration: IntegrationRecord;
  store: StoreRecord;
  credential: CredentialRow;
}

/**
 * spec: Authentication 1–4 — `Bearer key.secret` of this environment, secret checked against its
 * SHA-256 digest, not expired nor revoked. Anything else is 401 `unauthenticated`, with no hint of why.
 */
export function authenticate(env: EnvContext, request: FastifyRequest): AuthContext {
  const parsed = parseAuthorization(request.headers.authorization);
  if (!parsed || parsed.env !== env.name) throw ApiError.of('unauthenticated');
  const credential = env.credentials.byKey(parsed.keyId);
  if (!credential || !secretMatches(parsed.secret, credential.secret_sha256)) throw ApiError.of('unauthenticated');
  const now = env.clock.now();
  if (credential.revoked_at !== null || (credential.expires_at !== null && credential.expires_at <= now)) {
    throw ApiError.of('unauthenticated');
  }
  const integration = env.integrations.byId(credential.integration_id);
  const store = integration && env.stores.byId(integration.storeId);
  if (!integration || !store) throw ApiError.of('unauthenticated');
  if (integration.status === 'inactive' && env.integrations.activate(integration.id, now)) {
    integration.status = 'active';
  }
  return { integration, store, credential };
}

/** spec: Authentication 6 — suspension answers 403 everywhere but GET /me. */
export function assertNotSuspended(auth: AuthContext): void {
  if (auth.integration.status === 'suspended') throw ApiError.of('integration_suspended');
  if (auth.store.suspended) throw ApiError.of('store_suspended');
}
