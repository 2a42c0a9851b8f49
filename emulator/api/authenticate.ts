import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { AuthContext } from '../http/auth.js';
import { parseAuthorization, secretMatches } from '../stores/credentials.js';
import { AuthCache } from './auth-cache.js';
import { authRecords, type AuthRecords } from '../stores/repository.js';
import type { MaybePromise } from '../store/maybe.js';

const caches = new WeakMap<EnvContext, AuthCache>();

function cacheOf(env: EnvContext): AuthCache {
  let cache = caches.get(env);
  if (!cache) caches.set(env, (cache = new AuthCache(env.changes, env.name)));
  return cache;
}

/**
 * spec: Authentication 1–4 — `Bearer key.secret` of this environment, secret checked against its
 * SHA-256 digest, not expired nor revoked. Anything else is 401 `unauthenticated`, with no hint of why.
 * The records come from a cache that a write to their rows empties (see auth-cache.ts); they are
 * frozen. A cache hit answers at once (no promise): this runs on every request. `read`: the records
 * the request's admission read (a server database), instead of a read of their own.
 */
export function authenticate(env: EnvContext, request: FastifyRequest, read: { records: AuthRecords | undefined } | null = null): MaybePromise<AuthContext> {
  const parsed = parseAuthorization(request.headers.authorization);
  if (!parsed || parsed.env !== env.name) throw ApiError.of('unauthenticated');
  const cache = cacheOf(env);
  // Read with the request's admission (a server database, api/env-plugin.ts): frozen like kept ones.
  if (read) return check(env, read.records && read.records.credential.keyId === parsed.keyId ? cache.freeze(read.records) : undefined, parsed.secret);
  const kept = cache.get(parsed.keyId);
  if (kept) return check(env, kept, parsed.secret);
  const found = lookup(env, parsed.keyId, cache);
  return found.then((f) => check(env, f, parsed.secret));
}

async function lookup(env: EnvContext, keyId: string, cache: AuthCache): Promise<AuthContext | undefined> {
  const ticket = cache.ticket();
  const found = await authRecords(env.store, keyId);
  return found && cache.set(keyId, found, ticket);
}

function check(env: EnvContext, found: AuthContext | undefined, secret: string): MaybePromise<AuthContext> {
  if (!found || !secretMatches(secret, found.credential.secretSha256)) throw ApiError.of('unauthenticated');
  const { credential, integration, store } = found;
  const now = env.clock.now();
  if (credential.revokedAt !== null || (credential.expiresAt !== null && credential.expiresAt <= now)) {
    throw ApiError.of('unauthenticated');
  }
  // spec: Authentication 7 — the first valid call activates the integration (a write: the cache is renewed).
  if (integration.status !== 'inactive') return found;
  return env.store.integrations.activate(integration.id, now).then((activated) =>
    activated ? { credential, store, integration: { ...integration, status: 'active' as const } } : found,
  );
}
