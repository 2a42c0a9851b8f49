import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { Ed25519PublicJwk } from '../contract/certificates.js';

/**
 * RFC 7638's thumbprint of an Ed25519 public key: base64url of the SHA-256 of its required members
 * in lexicographic order (`crv`, `kty`, `x`). The sandbox's key ids are these: anyone can recompute
 * one from the key it names.
 */
export function jwkThumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`, 'utf8').digest('base64url');
}

/** The public JWK of an Ed25519 key (RFC 8037), with its thumbprint as `kid`. */
export function publicJwkOf(key: KeyObject): Ed25519PublicJwk {
  const jwk = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw new TypeError('publicJwkOf: not an Ed25519 key');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: jwkThumbprint(jwk.x), alg: 'EdDSA', use: 'sig' };
}

/** The node:crypto key of a public JWK (its `x`), for verifying. */
export function publicKeyOf(jwk: Pick<Ed25519PublicJwk, 'x'>): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}
