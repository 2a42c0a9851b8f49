import { createHash, createPrivateKey, createPublicKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { CLAIM_SECRET_PATTERN, CLAIM_SECRET_PREFIX } from '../../src/contract/access-requests.js';
import { randomBase62 } from '../stores/credentials.js';
import { bearerToken } from '../http/bearer.js';

// DESIGN: an access request's claim secret (`mkc_…`) is shown once, when the request is made, and
// kept as a SHA-256 digest. It also derives an X25519 key pair: the sandbox keeps the public half, to
// seal what an approval hands over (seal.ts), and only the integrator, with the secret, can open it.

export interface IssuedClaimSecret {
  secret: string;
  digest: Buffer;
  /** The raw X25519 public key the approval seals to. */
  sealKey: Buffer;
}

export function digestClaimSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** True when `secret` has the claim secret's shape and digests to `digest` (compared in constant time). */
export function claimSecretMatches(secret: string | undefined, digest: Buffer): boolean {
  if (secret === undefined || !CLAIM_SECRET_PATTERN.test(secret)) return false;
  const given = digestClaimSecret(secret);
  return given.length === digest.length && timingSafeEqual(given, digest);
}

// PKCS #8 for an X25519 private key is this prefix and the 32 raw bytes (RFC 8410).
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** The X25519 private key a claim secret derives (HKDF-SHA256); the same secret always gives the same key. */
export function claimPrivateKey(secret: string): KeyObject {
  const raw = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'merchant-kit access request', 'x25519 seal key', 32));
  return createPrivateKey({ key: Buffer.concat([X25519_PKCS8, raw]), format: 'der', type: 'pkcs8' });
}

/** The raw 32 bytes of an X25519 public key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const der = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** A new claim secret from crypto (never from `--seed`: a reproducible run must not make guessable secrets). */
export function newClaimSecret(): IssuedClaimSecret {
  const secret = `${CLAIM_SECRET_PREFIX}${randomBase62(40)}`;
  return { secret, digest: digestClaimSecret(secret), sealKey: rawPublicKey(claimPrivateKey(secret)) };
}

/** `Authorization: Bearer mkc_…` → the secret, by the one Bearer rule of every token; anything else → undefined. */
export function claimSecretOf(header: string | undefined): string | undefined {
  const given = bearerToken(header);
  return given !== undefined && CLAIM_SECRET_PATTERN.test(given) ? given : undefined;
}
