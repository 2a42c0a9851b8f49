import { createHash } from 'node:crypto';
import { LIMITS } from '../../../../contract/limits.js';
import type { PlannedOp } from './plan.js';

// spec: Limits — 500 operations per batch, 5 MB per request body. Parts stay under 4.5 MB so that
// the envelope and multi-byte text never push one over.
const MAX_OPERATIONS: number = LIMITS.batchOperations;
const MAX_PART_BYTES = 4_500_000;

/** The operation as the batch sends it. */
export const wireOp = (op: PlannedOp) => ({ op: op.op, external_id: op.external_id, data: op.data });

/** Consecutive slices of at most 500 operations and 4.5 MB each, in the plan's order. */
export function splitParts(ops: PlannedOp[], maxOps = MAX_OPERATIONS, maxBytes = MAX_PART_BYTES): PlannedOp[][] {
  const parts: PlannedOp[][] = [];
  let current: PlannedOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    const size = Buffer.byteLength(JSON.stringify(wireOp(op))) + 1;
    if (current.length > 0 && (current.length >= maxOps || bytes + size > maxBytes)) {
      parts.push(current);
      current = [];
      bytes = 0;
    }
    current.push(op);
    bytes += size;
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** A digest of exactly what a run sends (every part's operations): the same file gives the same digest. */
export function partsDigest(parts: PlannedOp[][]): string {
  const hash = createHash('sha256');
  parts.forEach((part, i) => hash.update(`${i}:${JSON.stringify(part.map(wireOp))}\n`));
  return hash.digest('hex');
}
