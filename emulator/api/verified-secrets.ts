import { timingSafeEqual } from 'node:crypto';
import { digestSecret } from '../stores/credentials.js';

/** Key ids whose verified secret is kept at most (a full memo starts again empty). */
export const VERIFIED_SECRETS_CAP = 1000;

/**
 * The secret each recent key id was verified with, and its SHA-256 digest: a request that presents
 * the same secret again gets its digest without hashing it (the hash was most of the API's own
 * onRequest work, bench/orders.mjs; twice a request on a server database, for its admission and for
 * the check). The digest is still compared with the credential's stored one, read as every request
 * reads it (api/auth-cache.ts, or the admission): this saves the hash and decides nothing, so a
 * revocation, rotation, suspension or restore is in effect on the very next request without any
 * invalidation. The owner empties it with the auth cache all the same (auth changes, resets).
 *
 * Only a secret that matched its stored digest enters (endless random tokens never do), one per key
 * id, up to a cap. A presented secret is compared with the kept one in constant time. The secrets
 * live in a private field: no log, inspection, dump or bundle of this object shows them.
 */
export class VerifiedSecrets {
  readonly #kept = new Map<string, { secret: string; digest: Buffer }>();

  /** `digest`: the hash (tests count its calls). */
  constructor(private readonly digest: (secret: string) => Buffer = digestSecret) {}

  /** The SHA-256 digest of `secret` (spec: Authentication 3), kept or computed. */
  digestOf(keyId: string, secret: string): Buffer {
    const kept = this.#kept.get(keyId);
    return kept !== undefined && sameSecret(secret, kept.secret) ? kept.digest : this.digest(secret);
  }

  /** Whether `secret` is the credential's (`stored`: its digest); a secret that is is kept for the next time. */
  matches(keyId: string, secret: string, stored: Buffer): boolean {
    const kept = this.#kept.get(keyId);
    const known = kept !== undefined && sameSecret(secret, kept.secret);
    const digest = known ? kept.digest : this.digest(secret);
    if (digest.length !== stored.length || !timingSafeEqual(digest, stored)) {
      // The credential's digest is not the one kept for its key (its row was replaced): forget it.
      if (known) this.#kept.delete(keyId);
      return false;
    }
    if (!known) {
      if (this.#kept.size >= VERIFIED_SECRETS_CAP) this.#kept.clear();
      this.#kept.set(keyId, { secret, digest });
    }
    return true;
  }

  /** How many key ids have a kept secret. */
  get size(): number {
    return this.#kept.size;
  }

  clear(): void {
    this.#kept.clear();
  }
}

/**
 * Whether two secrets are the same text, in a time that depends on the presented one's length only
 * (never on where they first differ). A character past the end of `kept` reads as NaN, which the
 * bitwise operators take as 0: the lengths' difference already decides then.
 */
function sameSecret(presented: string, kept: string): boolean {
  let diff = presented.length ^ kept.length;
  for (let i = 0; i < presented.length; i++) diff |= presented.charCodeAt(i) ^ kept.charCodeAt(i);
  return diff === 0;
}
