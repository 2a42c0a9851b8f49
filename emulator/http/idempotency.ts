import { createHash } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../src/contract/limits.js';
import type { Endpoint } from '../../src/contract/endpoint.js';
import type { Environment } from '../../src/contract/store.js';
import type { IdempotencyClaims, StoredResponse } from '../store/coordination.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

export type IdempotencyDecision =
  | { kind: 'none' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'fresh'; key: string };

/**
 * spec: Errors, Idempotency rules 1–3 — checks the header and claims the key. A fresh key is the
 * request's until `settle` stores (2xx, 4xx) or releases (5xx, 429, in-progress) the answer.
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
): Promise<IdempotencyDecision> {
  if (endpoint.idempotency === 'none') return { kind: 'none' };
  if (header === undefined) {
    if (endpoint.idempotency === 'required') throw ApiError.of('idempotency_key_required');
    return { kind: 'none' };
  }
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw ApiError.of('invalid_idempotency_key');
  const claim = await claims.claim(env, integrationId, key, fingerprint(method, path, body), now);
  switch (claim.kind) {
    case 'in_progress':
      throw ApiError.of('request_in_progress').withHeaders({ 'Retry-After': '1' });
    case 'conflict':
      throw ApiError.of('idempotency_conflict');
    case 'replay':
      return { kind: 'replay', response: claim.response };
    case 'fresh':
      return { kind: 'fresh', key };
  }
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
