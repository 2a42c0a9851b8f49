import { createHash } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../src/contract/limits.js';
import type { Endpoint } from '../../src/contract/endpoint.js';
import type { Environment } from '../../src/contract/store.js';
import type { Claim, IdempotencyClaims, StoredResponse, WorkClaim } from '../store/coordination.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

export type IdempotencyDecision =
  | { kind: 'none' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'fresh'; key: string }
  /** The key is claimed by the request's unit of work (`IdempotencyClaims.withWork`), or after the handler when it ran none. */
  | { kind: 'work'; key: string; claim: WorkClaim };

/** spec: Errors, Idempotency rules 1 — the request's key: checked, or none when it may have none. */
function keyOf(endpoint: Endpoint, header: string | string[] | undefined): string | undefined {
  if (header === undefined) {
    if (endpoint.idempotency === 'required') throw ApiError.of('idempotency_key_required');
    return undefined;
  }
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw ApiError.of('invalid_idempotency_key');
  return key;
}

/**
 * What a claim answers: null when it took the key (the request runs), the stored answer of a replay,
 * or the spec's 409 thrown (another request with the key is running, or it had another body).
 */
export function replayOf(claim: Claim): StoredResponse | null {
  switch (claim.kind) {
    case 'in_progress':
      throw ApiError.of('request_in_progress').withHeaders({ 'Retry-After': '1' });
    case 'conflict':
      throw ApiError.of('idempotency_conflict');
    case 'replay':
      return claim.response;
    case 'fresh':
      return null;
  }
}

/**
 * spec: Errors, Idempotency rules 1–3 — checks the header and claims the key (or, `withWork`, leaves
 * the claim to the unit of work). A fresh key is the request's until `settle` stores (2xx, 4xx) or releases (5xx, 429, in-progress) the answer.
 */
export async function checkIdempotency(
  claims: IdempotencyClaims,
  env: Environment,
  now: number,
  integrationId: string,
  endpoint: Endpoint,
  header: string | string[] | undefined,
  method: string,
  path: string,
  body: unknown,
  withWork = false,
): Promise<IdempotencyDecision> {
  if (endpoint.idempotency === 'none') return { kind: 'none' };
  const key = keyOf(endpoint, header);
  if (key === undefined) return { kind: 'none' };
  const print = fingerprint(method, path, body);
  // `withWork`: the claim is left to the request's unit of work where the storage can (a server
  // database's `IdempotencyClaims.withWork`): one round trip less, the same checks.
  if (withWork && claims.withWork) return { kind: 'work', key, claim: claims.withWork(env, integrationId, key, print, now) };
  const response = replayOf(await claims.claim(env, integrationId, key, print, now));
  return response ? { kind: 'replay', response } : { kind: 'fresh', key };
}

// Answers that only say "try again later" (with Retry-After) are not the request's answer.
const TRANSIENT = new Set(['request_in_progress', 'batch_in_progress']);

export async function settleIdempotency(
  claims: IdempotencyClaims, env: Environment, integrationId: string, key: string, response: StoredResponse, code?: string,
): Promise<void> {
  const keep = response.status < 500 && response.status !== 429 && !TRANSIENT.has(code ?? '');
  if (keep) await claims.finish(env, integrationId, key, response);
  else await claims.release(env, integrationId, key);
}
