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
  readonly #kept = new Map<string, Kept>();

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
    if (kept !== undefined && sameSecret(secret, kept.secret)) {
      // The very digest it matched (the auth cache hands out the same records until they change).
      if (stored === kept.matched || sameDigest(kept.digest, stored)) {
        kept.matched = stored;
        return true;
      }
      // The credential's digest is no longer the one its key had (its row was replaced): forget it.
      this.#kept.delete(keyId);
      return false;
    }
    const digest = this.digest(secret);
    if (!sameDigest(digest, stored)) return false;
    if (this.#kept.size >= VERIFIED_SECRETS_CAP) this.#kept.clear();
    this.#kept.set(keyId, { secret: Buffer.from(secret, 'latin1'), digest, matched: stored });
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

interface Kept {
  /** The secret's characters (base62 and `_`: one byte each, parseAuthorization's pattern). */
  secret: Buffer;
  digest: Buffer;
  /** The stored digest it matched last (an identity check saves comparing the same bytes again). */
  matched: Buffer;
}

/**
 * Whether the presented secret is the kept one, compared in constant time (its length aside: every
 * issued secret has the same). A Buffer of it and `timingSafeEqual` cost less than a loop over the
 * characters of a string sliced from the header.
 */
function sameSecret(presented: string, kept: Buffer): boolean {
  if (presented.length !== kept.length) return false;
  const bytes = Buffer.from(presented, 'latin1');
  return bytes.length === kept.length && timingSafeEqual(bytes, kept);
}

function sameDigest(digest: Buffer, stored: Buffer): boolean {
  return digest.length === stored.length && timingSafeEqual(digest, stored);
}
