import { hash, randomBytes } from 'node:crypto';
import type { Environment } from '../../src/contract/store.js';
import { bearerToken } from '../http/bearer.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters from crypto (credentials and store tokens). */
export function randomBase62(length: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export interface IssuedCredential {
  keyId: string;
  secret: string;
  /** `key.secret`, as the Authorization header carries it. */
  full: string;
  digest: Buffer;
}

/** spec: Authentication 2 — `svk_<env>_…` key part, `svs_<env>_…` secret part; secrets always from crypto. */
export function issueCredential(env: Environment): IssuedCredential {
  const keyId = `svk_${env}_${randomBase62(24)}`;
  const secret = `svs_${env}_${randomBase62(40)}`;
  return { keyId, secret, full: `${keyId}.${secret}`, digest: digestSecret(secret) };
}

/** spec: Authentication 3 — only the SHA-256 digest of the secret is stored. */
export function digestSecret(secret: string): Buffer {
  // The one-shot hash (no Hash object per call): every API request digests its secret (bench/orders.mjs).
  return hash('sha256', secret, 'buffer');
}

// The credential itself is case-sensitive; the header's scheme is read by the one Bearer rule.
const CREDENTIAL = /^(svk_(live|test)_[A-Za-z0-9]{1,64})\.(svs_(live|test)_[A-Za-z0-9]{1,128})$/;

/** An API credential as an Authorization header presents it (not verified). */
export interface PresentedCredential {
  keyId: string;
  secret: string;
  env: Environment;
}

/** Splits `Bearer key.secret`; undefined when the header does not have that shape. */
export function parseAuthorization(header: string | undefined): PresentedCredential | undefined {
  const token = bearerToken(header);
  if (token === undefined) return undefined;
  const m = CREDENTIAL.exec(token);
  if (!m || m[2] !== m[4]) return undefined;
  return { keyId: m[1], secret: m[3], env: m[2] as Environment };
}
