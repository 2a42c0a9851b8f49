import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN } from '../contract/limits.js';

/**
 * A fresh key in the spec's format (8 to 100 of letters, digits, - _ . :): `mk_` and a UUID, 39 characters.
 * @example generateIdempotencyKey() // 'mk_3b241101-e2bb-4255-8caf-4136c566a962'
 */
export function generateIdempotencyKey(): string {
  return `mk_${randomUUID()}`;
}

export function isValidIdempotencyKey(key: string): boolean {
  return IDEMPOTENCY_KEY_PATTERN.test(key);
}
