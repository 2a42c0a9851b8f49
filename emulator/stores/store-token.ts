import { createHash } from 'node:crypto';
import type { Environment } from '../../src/contract/store.js';
import { formatDate } from '../../src/contract/dates.js';
import type { EnvContext } from '../context.js';
import { randomBase62 } from './credentials.js';

// DESIGN, Storage and the team sandbox: a store token (`mks_…`) opens only its store's control
// routes and panel. It is shown once, when issued; the storage keeps its SHA-256 digest only.

/** The shape of a store token; anything else is never looked up. */
export const STORE_TOKEN = /^mks_[A-Za-z0-9]{40}$/;

export interface IssuedStoreToken {
  token: string;
  digest: Buffer;
}

export function digestStoreToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new token from crypto (never from `--seed`: a reproducible run must not make guessable tokens). */
export function newStoreToken(): IssuedStoreToken {
  const token = `mks_${randomBase62(40)}`;
  return { token, digest: digestStoreToken(token) };
}

/** Writes a new token for the store (the old one stops at once): the answer shows it, once. */
export async function issueStoreToken(env: EnvContext, storeId: string) {
  const { token, digest } = newStoreToken();
  const now = env.clock.now();
  await env.store.stores.setToken(storeId, digest, now);
  return { store_id: storeId, environment: env.name, store_token: token, created_at: formatDate(now) };
}

/**
 * The store a token opens, with its environment; undefined for a token no store has. Looked up by
 * digest on every call (no cache: a token replaced on one process of a shared sandbox stops on all
 * at once); an index lookup of a SHA-256 digest tells nothing about the token's characters.
 */
export async function storeOfToken(envs: Iterable<EnvContext>, token: string): Promise<{ storeId: string; environment: Environment } | undefined> {
  if (!STORE_TOKEN.test(token)) return undefined;
  const digest = digestStoreToken(token);
  for (const env of envs) {
    const storeId = await env.store.stores.storeOfToken(digest);
    if (storeId) return { storeId, environment: env.name };
  }
  return undefined;
}
