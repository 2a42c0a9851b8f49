import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { CertificateKeySet } from '../../src/contract/certificates.js';
import { jwkThumbprint } from '../../src/certificates/jwk.js';
import type { NewSigningKey, SigningKeyRecord } from './repository.js';

/** A new Ed25519 key pair, its private half as PKCS #8 DER and its id the RFC 7638 thumbprint. */
export function newSigningKey(now = Date.now()): NewSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
  return { kid: jwkThumbprint(x), privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }), x, createdAt: now };
}

export function privateKeyOf(key: SigningKeyRecord): KeyObject {
  return createPrivateKey({ key: key.privateKey, format: 'der', type: 'pkcs8' });
}

/** The public JWKS (RFC 7517, RFC 8037) of the ledger's keys, in its order: the one signing now first. */
export function keySet(keys: SigningKeyRecord[]): CertificateKeySet {
  return { keys: keys.map((k) => ({ kty: 'OKP', crv: 'Ed25519', x: k.x, kid: k.kid, alg: 'EdDSA', use: 'sig' })) };
}
