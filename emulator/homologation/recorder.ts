import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import type { Facts, RecordedCall } from '../../src/contract/observation.js';

export type { Facts, RecordedCall };

// The calls themselves are kept by the storage's coordination (adapters/sqlite/local/homologation.ts
// on one process): this module says what of a request is kept — never its body, never the Authorization header.

/**
 * The body's digest over JSON with sorted keys (the contract's `canonicalJson`, safe on a
 * body nested thousands of levels deep), so two JSON-equal bodies have the same digest.
 */
export function bodyDigest(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
