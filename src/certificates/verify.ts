import {
  certificateHeader, certificatePayload, ed25519PublicJwk, type CertificateHeader, type CertificatePayload, type Ed25519PublicJwk, type RevokedCertificate,
} from '../contract/certificates.js';
import { reportSha256 } from './report-digest.js';
import { publicKeyOf } from './jwk.js';
import { parseCompact, signatureValid } from './jws.js';

/** Why a certificate is not valid. */
export type CertificateProblem =
  /** Not a compact JWS of a certificate (three base64url parts, the header and payload of one). */
  | 'malformed'
  /** No key of the key set has the header's `kid`. */
  | 'unknown_key'
  /** The signature does not verify with that key: the token was changed, or another key signed it. */
  | 'signature'
  /** The sandbox revoked it. */
  | 'revoked'
  /** The report given is not the one certified (`report_sha256` differs). */
  | 'report_digest';

export interface VerifyCertificateOptions {
  /** The sandbox's public keys: the JWKS of `GET /_emulator/certificates/keys`. */
  keys: { keys: readonly unknown[] };
  /** Its revocations (`GET /_emulator/certificates/revoked`'s `data`); not given: not checked. */
  revoked?: readonly Pick<RevokedCertificate, 'id' | 'revoked_at'>[];
  /** The report the certificate is about (`homologation.json`); not given: not checked. */
  report?: unknown;
}

export type CertificateVerification =
  | {
      valid: true;
      header: CertificateHeader;
      payload: CertificatePayload;
      /** Whether a revocation list and a report were there to check. */
      checked: { revocations: boolean; report: boolean };
    }
  | {
      valid: false;
      reason: CertificateProblem;
      /** One sentence for a person (English). */
      message: string;
      header?: CertificateHeader;
      payload?: CertificatePayload;
    };

function refuse(reason: CertificateProblem, message: string, header?: CertificateHeader, payload?: CertificatePayload): CertificateVerification {
  return { valid: false, reason, message, ...(header ? { header } : {}), ...(payload ? { payload } : {}) };
}

/**
 * Verifies a sandbox's certificate with node:crypto alone, as any JOSE library would (RFC 7515
 * compact JWS, EdDSA over Ed25519, the key chosen by `kid`), then what JOSE does not know: that the
 * sandbox has not revoked it, and that a report is the one it certified (`report_sha256`, see
 * reportSha256). Every check is made; the first that fails is the answer.
 *
 * @example
 * const keys = await (await fetch('https://sandbox.example.com/_emulator/certificates/keys')).json();
 * const revoked = (await (await fetch('https://sandbox.example.com/_emulator/certificates/revoked')).json()).data;
 * const result = verifyCertificate(report.certificate.jws, { keys, revoked, report });
 * if (!result.valid) throw new Error(result.message);
 */
export function verifyCertificate(jws: string, options: VerifyCertificateOptions): CertificateVerification {
  const parsed = parseCompact(typeof jws === 'string' ? jws.trim() : '');
  if (typeof parsed === 'string') return refuse('malformed', `not a certificate: ${parsed}`);
  const header = certificateHeader.safeParse(parsed.header);
  if (!header.success) return refuse('malformed', 'not a certificate: its header is not {alg: "EdDSA", kid, typ}');
  const payload = certificatePayload.safeParse(parsed.payload);
  if (!payload.success) return refuse('malformed', 'not a certificate: its payload lacks the certificate\'s fields', header.data);
  const h = header.data;
  const p = payload.data;
  const key = findKey(options.keys, h.kid);
  if (!key) return refuse('unknown_key', `unknown key: no key of the key set has the id ${h.kid}`, h, p);
  if (!signatureValid(parsed, publicKeyOf(key))) {
    return refuse('signature', `bad signature: ${p.jti} was not signed by key ${h.kid} as it stands (changed after it was issued?)`, h, p);
  }
  const revoked = options.revoked?.find((r) => r.id === p.jti);
  if (revoked) return refuse('revoked', `revoked: ${p.jti} was revoked at ${revoked.revoked_at}`, h, p);
  if (options.report !== undefined) {
    let digest: string;
    try {
      digest = reportSha256(options.report);
    } catch (error) {
      return refuse('report_digest', `report digest differs: the report cannot be digested (${(error as Error).message})`, h, p);
    }
    if (digest !== p.report_sha256) {
      return refuse('report_digest', `report digest differs: the report's SHA-256 is ${digest}, the certificate's ${p.report_sha256} (the report was changed, or is another one)`, h, p);
    }
  }
  return { valid: true, header: h, payload: p, checked: { revocations: options.revoked !== undefined, report: options.report !== undefined } };
}

/** The Ed25519 key with this id in a JWKS; keys of other types (or malformed ones) are passed over. */
function findKey(set: { keys: readonly unknown[] } | undefined, kid: string): Ed25519PublicJwk | undefined {
  for (const candidate of Array.isArray(set?.keys) ? set.keys : []) {
    const key = ed25519PublicJwk.safeParse(candidate);
    if (key.success && key.data.kid === kid && (key.data.use === undefined || key.data.use === 'sig')) return key.data;
  }
  return undefined;
}

/**
 * The certificate that a JSON text carries: a report (`certificate: {id, jws}`), the answer of
 * `GET /_emulator/homologation/{integration_id}` (`{data: report}`), or `{id, jws}` itself; with the
 * report when there is one. Undefined when it carries none.
 */
export function certificateOf(value: unknown): { jws: string; report: Record<string, unknown> | null } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const object = value as Record<string, unknown>;
  if ('data' in object && !('schema_version' in object)) return certificateOf(object.data);
  if (typeof object.jws === 'string' && !('schema_version' in object)) return { jws: object.jws, report: null };
  const certificate = object.certificate as { jws?: unknown } | null | undefined;
  if (certificate && typeof certificate === 'object' && typeof certificate.jws === 'string') return { jws: certificate.jws, report: object };
  return undefined;
}
