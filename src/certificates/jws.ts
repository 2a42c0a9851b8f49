import { sign, verify, type KeyObject } from 'node:crypto';

// RFC 7515, compact serialisation: BASE64URL(header) '.' BASE64URL(payload) '.' BASE64URL(signature),
// the signature over the first two parts as ASCII. Ed25519 signs the bytes themselves (RFC 8037: no
// digest first), which node:crypto does with a null algorithm.

const B64URL = /^[A-Za-z0-9_-]*$/;

/** A compact JWS whose header and payload are JSON objects, signed with an Ed25519 private key. */
export function signCompact(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  const input = `${Buffer.from(JSON.stringify(header), 'utf8').toString('base64url')}.${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input, 'ascii'), privateKey).toString('base64url')}`;
}

export interface ParsedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

/** Why a text is not a compact JWS of JSON objects, or null when it is one. */
export function parseCompact(text: string): ParsedJws | string {
  const parts = text.split('.');
  if (parts.length !== 3) return `a compact JWS has three parts separated by dots (found ${parts.length})`;
  if (!parts.every((p) => B64URL.test(p))) return 'a part of the JWS is not base64url';
  const [h, p, s] = parts as [string, string, string];
  const header = jsonObject(h);
  if (!header) return 'the JWS header is not a JSON object';
  const payload = jsonObject(p);
  if (!payload) return 'the JWS payload is not a JSON object';
  return { header, payload, signingInput: `${h}.${p}`, signature: Buffer.from(s, 'base64url') };
}

function jsonObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** True when `signature` is an Ed25519 signature of the signing input by `publicKey`. */
export function signatureValid(jws: ParsedJws, publicKey: KeyObject): boolean {
  try {
    return verify(null, Buffer.from(jws.signingInput, 'ascii'), publicKey, jws.signature);
  } catch {
    return false;
  }
}
