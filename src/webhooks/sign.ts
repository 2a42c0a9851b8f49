import { createHmac, timingSafeEqual } from 'node:crypto';

// spec: Events, Webhook delivery — `X-Service-Signature: v1=<hex>`, HMAC-SHA256 over `timestamp + "." + raw body`.
export const SIGNATURE_VERSION = 'v1';
/** spec: Limits, signature timestamp tolerance. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type RawBody = string | Uint8Array;

/** Lowercase hex HMAC-SHA256 of `data` under `key` (the primitive the RFC 4231 vectors check). */
export function hmacSha256Hex(key: string | Uint8Array, data: RawBody): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/**
 * The hex signature of one delivery: HMAC-SHA256 with the signing secret over the timestamp
 * header's digits, a dot and the raw body bytes.
 *
 * @example
 * sign('whsec_abc', '1700000000', '{"id":"evt_…"}') // → '5f1c…' (64 hex characters)
 */
export function sign(secret: string, timestamp: string | number, rawBody: RawBody): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return hmac.digest('hex');
}

/**
 * The `X-Service-Signature` value: one `v1=<hex>` entry per secret, comma-separated (two during
 * a secret rotation: the new one first).
 *
 * @example
 * signatureHeader(['whsec_new', 'whsec_old'], '1700000000', body) // → 'v1=…,v1=…'
 */
export function signatureHeader(secrets: readonly string[], timestamp: string | number, rawBody: RawBody): string {
  return secrets.map((s) => `${SIGNATURE_VERSION}=${sign(s, timestamp, rawBody)}`).join(',');
}

/** The hex signatures of a header, ignoring entries of other versions and malformed ones. */
export function parseSignatureHeader(header: string): string[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SIGNATURE_VERSION}=`))
    .map((part) => part.slice(SIGNATURE_VERSION.length + 1).toLowerCase())
    .filter((hex) => /^[0-9a-f]{64}$/.test(hex));
}

export interface VerifyInput {
  /** The `X-Service-Signature` header as received. */
  signature: string | undefined | null;
  /** The `X-Service-Timestamp` header as received (Unix seconds, digits only). */
  timestamp: string | undefined | null;
  /** The raw body bytes, before any JSON decoding. */
  rawBody: RawBody;
  /** The receiver's secrets; during its own rotation a receiver may hold two. */
  secrets: string | readonly string[];
  /** Seconds; default 300. */
  toleranceSeconds?: number;
  /** The receiver's current Unix time in seconds; default the real clock. */
  nowSeconds?: number;
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: 'missing_signature' | 'missing_timestamp' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

function equalHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Receiver rules 1–3 of the spec: signature over the raw body, constant-time comparison where one
 * matching entry suffices, and at most 300 s between the timestamp and the receiver's clock.
 * (Rule 4, dropping duplicates by event id, is the receiver's own bookkeeping.)
 *
 * @example
 * const result = verify({ signature: req.headers['x-service-signature'], timestamp: req.headers['x-service-timestamp'], rawBody, secrets: secret });
 * if (!result.ok) return res.writeHead(400).end(result.reason);
 */
export function verify(input: VerifyInput): VerifyResult {
  if (!input.signature) return { ok: false, reason: 'missing_signature' };
  if (!input.timestamp) return { ok: false, reason: 'missing_timestamp' };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'invalid_timestamp' };
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(input.timestamp)) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const given = parseSignatureHeader(input.signature);
  const secrets = typeof input.secrets === 'string' ? [input.secrets] : input.secrets;
  // Every pair is compared, so the time taken does not reveal which entry matched.
  let matched = false;
  for (const secret of secrets) {
    const expected = sign(secret, input.timestamp, input.rawBody);
    for (const hex of given) if (equalHex(hex, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'no_matching_signature' };
}
