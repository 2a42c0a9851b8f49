import { createHash } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../src/contract/limits.js';
import type { Endpoint } from '../../src/contract/endpoint.js';
import type { Environment } from '../../src/contract/store.js';
import type { IdempotencyClaims, StoredResponse } from '../store/coordination.js';

/**
 * JSON with sorted keys: two bodies that are JSON-equal give the same text. A body nested thousands
 * of levels deep (JSON.parse takes it) must not overflow the call stack and turn into a 500: the
 * usual shallow body is written recursively (fast), and any part deeper than `RECURSION_LIMIT`
 * levels by the iterative writer, with an explicit stack.
 */
export function canonicalJson(root: unknown): string {
  if (root === null || typeof root !== 'object') return writeRecursive(root, 0);
  let text = canonicalTexts.get(root);
  if (text === undefined) canonicalTexts.set(root, (text = writeRecursive(root, 0)));
  return text;
}

// A write's parsed body is read by the homologation recorder, the idempotency fingerprint and a
// snapshot part's fingerprint, and never changed after parsing: its text is written once (on a
// 500-operation batch, about 3 ms each time).
const canonicalTexts = new WeakMap<object, string>();

const RECURSION_LIMIT = 500;

function writeRecursive(value: unknown, depth: number): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (depth >= RECURSION_LIMIT) return writeIterative(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + writeRecursive(value[i], depth + 1);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${writeRecursive(record[keys[i]!], depth + 1)}`;
  return `${out}}`;
}

function writeIterative(root: unknown): string {
  const out: string[] = [];
  // Each entry is either a value still to write or a piece of punctuation already decided.
  const stack: ({ value: unknown } | string)[] = [{ value: root }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const value = item.value;
    if (value === undefined) out.push('null');
    else if (value === null || typeof value !== 'object') out.push(JSON.stringify(value));
    else if (Array.isArray(value)) pushReversed(stack, '[', ']', value.map((v) => [{ value: v }]));
    else {
      const record = value as Record<string, unknown>;
      pushReversed(stack, '{', '}', Object.keys(record).sort().map((k) => [`${JSON.stringify(k)}:`, { value: record[k] }]));
    }
  }
  return out.join('');
}

/** Schedules `open`, the members separated by commas, then `close`, on a LIFO stack. */
function pushReversed(stack: ({ value: unknown } | string)[], open: string, close: string, members: ({ value: unknown } | string)[][]): void {
  stack.push(close);
  for (let i = members.length - 1; i >= 0; i--) {
    const member = members[i]!;
    for (let j = member.length - 1; j >= 0; j--) stack.push(member[j]!);
    if (i > 0) stack.push(',');
  }
  stack.push(open);
}

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
