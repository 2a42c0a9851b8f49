import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { AuthContext } from '../http/auth.js';
import type { PresentedCredential } from '../stores/credentials.js';
import { AuthCache } from './auth-cache.js';
import type { VerifiedSecrets } from './verified-secrets.js';
import { authRecords, type AuthRecords } from '../stores/repository.js';
import type { MaybePromise } from '../store/maybe.js';

const caches = new WeakMap<EnvContext, AuthCache>();

function cacheOf(env: EnvContext): AuthCache {
  let cache = caches.get(env);
  if (!cache) caches.set(env, (cache = new AuthCache(env.changes, env.name)));
  return cache;
}

/** The SHA-256 digest of a presented secret (a server database's admission compares it in SQL), without hashing a secret verified before. */
export function presentedDigest(env: EnvContext, presented: PresentedCredential): Buffer {
  return cacheOf(env).secrets.digestOf(presented.keyId, presented.secret);
}

/**
 * spec: Authentication 1–4 — `Bearer key.secret` of this environment (`presented`: the request's
 * Authorization header, parsed), secret checked against its SHA-256 digest, not expired nor revoked.
 * Anything else is 401 `unauthenticated`, with no hint of why. The records come from a cache that a
 * write to their rows empties (see auth-cache.ts); they are frozen. A cache hit answers at once (no
 * promise): this runs on every request. `read`: the records the request's admission read (a server
 * database), instead of a read of their own.
 */
export function authenticate(
  env: EnvContext, presented: PresentedCredential | undefined, read: { records: AuthRecords | undefined } | null = null,
): MaybePromise<AuthContext> {
  if (!presented || presented.env !== env.name) throw ApiError.of('unauthenticated');
  const cache = cacheOf(env);
  // Read with the request's admission (a server database, api/env-plugin.ts): frozen like kept ones.
  if (read) {
    const records = read.records && read.records.credential.keyId === presented.keyId ? cache.freeze(read.records) : undefined;
    return check(env, records, presented, cache.secrets);
  }
  const kept = cache.get(presented.keyId);
  if (kept) return check(env, kept, presented, cache.secrets);
  const found = lookup(env, presented.keyId, cache);
  return found.then((f) => check(env, f, presented, cache.secrets));
}

async function lookup(env: EnvContext, keyId: string, cache: AuthCache): Promise<AuthContext | undefined> {
  const ticket = cache.ticket();
  const found = await authRecords(env.store, keyId);
  return found && cache.set(keyId, found, ticket);
}

function check(env: EnvContext, found: AuthContext | undefined, presented: PresentedCredential, secrets: VerifiedSecrets): MaybePromise<AuthContext> {
  if (!found || !secrets.matches(presented.keyId, presented.secret, found.credential.secretSha256)) throw ApiError.of('unauthenticated');
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
