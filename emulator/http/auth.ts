import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { CredentialRow } from '../data/credentials.js';
import type { IntegrationRecord } from '../data/integrations.js';
import type { StoreRecord } from '../data/stores.js';
import { parseAuthorization, secretMatches } from '../stores/credentials.js';
import { authCacheOf, type AuthCache } from './auth-cache.js';

export interface AuthContext {
  integration: IntegrationRecord;
  store: StoreRecord;
  credential: CredentialRow;
}

/**
 * spec: Authentication 1–4 — `Bearer key.secret` of this environment, secret checked against its
 * SHA-256 digest, not expired nor revoked. Anything else is 401 `unauthenticated`, with no hint of why.
 * The records come from a cache that a write to their rows empties (see auth-cache.ts); they are frozen.
 */
export function authenticate(env: EnvContext, request: FastifyRequest): AuthContext {
  const parsed = parseAuthorization(request.headers.authorization);
  if (!parsed || parsed.env !== env.name) throw ApiError.of('unauthenticated');
  const cache = authCacheOf(env.db);
  const found = cache.get(parsed.keyId) ?? lookup(env, parsed.keyId, cache);
  if (!found || !secretMatches(parsed.secret, found.credential.secret_sha256)) throw ApiError.of('unauthenticated');
  const { credential, integration, store } = found;
  const now = env.clock.now();
  if (credential.revoked_at !== null || (credential.expires_at !== null && credential.expires_at <= now)) {
    throw ApiError.of('unauthenticated');
  }
  // spec: Authentication 7 — the first valid call activates the integration (a write: the cache is renewed).
  if (integration.status === 'inactive' && env.integrations.activate(integration.id, now)) {
    return { credential, store, integration: { ...integration, status: 'active' } };
  }
  return found;
}

function lookup(env: EnvContext, keyId: string, cache: AuthCache): AuthContext | undefined {
  const credential = env.credentials.byKey(keyId);
  const integration = credential && env.integrations.byId(credential.integration_id);
  const store = integration && env.stores.byId(integration.storeId);
  if (!credential || !integration || !store) return undefined;
  return cache.set(keyId, { credential, integration, store });
}

/** spec: Authentication 6 — suspension answers 403 everywhere but GET /me. */
export function assertNotSuspended(auth: AuthContext): void {
  if (auth.integration.status === 'suspended') throw ApiError.of('integration_suspended');
  if (auth.store.suspended) throw ApiError.of('store_suspended');
}
