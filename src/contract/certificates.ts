import { z } from 'zod';

// DESIGN: The operator's public test environment — a certified observed session earns a certificate:
// a compact JWS (RFC 7515) signed with Ed25519 (`alg: EdDSA`, RFC 8037), verifiable by any JOSE
// library with the sandbox's public keys (a JWKS, RFC 7517) and its list of revocations.

/** `crt_` plus 26 characters (spec: Conventions, Identifiers). */
export const CERTIFICATE_PREFIX = 'crt_';
export const CERTIFICATE_ID = /^crt_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The JWS header's `typ` (RFC 8725, 3.11: explicit typing, so no other JWT passes for a certificate). */
export const CERTIFICATE_TYP = 'merchant-kit-certificate+jwt';

/** How the integration receives orders during the session: a webhook, the feed, or both. */
export const INTAKES = ['webhook', 'feed', 'both'] as const;
export type Intake = (typeof INTAKES)[number];

/** The settings the grading depends on (DESIGN: Grading the ERPs the spec allows). */
export const gradedSettings = z.object({
  order_status_authority: z.enum(['both', 'erp', 'service']),
  ack_expected: z.enum(['on_receipt', 'after_acceptance']),
});
export type GradedSettings = z.output<typeof gradedSettings>;

/**
 * The certificate's payload. `report_sha256` is the hex SHA-256 of the report's JSON without its
 * `certificate` member, serialised canonically (RFC 8785, JCS: keys sorted, no spaces); `iat` is the
 * real time of issue in seconds (not the emulator's clock, which a sandbox may have moved).
 */
export const certificatePayload = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1),
  store_id: z.string().min(1),
  system: z.string(),
  environment: z.enum(['test', 'live']),
  intake: z.enum(INTAKES),
  settings: gradedSettings,
  /** The ids of the checks passed, in the report's order. */
  checks: z.array(z.string()),
  report_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  iat: z.int().min(0),
  jti: z.string().regex(CERTIFICATE_ID),
});
export type CertificatePayload = z.output<typeof certificatePayload>;

/** The protected header of a certificate. */
export const certificateHeader = z.object({
  alg: z.literal('EdDSA'),
  kid: z.string().min(1),
  typ: z.literal(CERTIFICATE_TYP).optional(),
});
export type CertificateHeader = z.output<typeof certificateHeader>;

/** One public key of the sandbox (RFC 8037: an Ed25519 key is `kty: OKP`, `crv: Ed25519`). */
export const ed25519PublicJwk = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  kid: z.string().min(1),
  alg: z.literal('EdDSA').optional(),
  use: z.literal('sig').optional(),
});
export type Ed25519PublicJwk = z.output<typeof ed25519PublicJwk>;

/**
 * GET /_emulator/certificates/keys — the JWKS itself (`{keys: […]}`, not in the `{data}` envelope,
 * so that a JOSE library's remote key set reads it as it is): every key that signed a certificate,
 * the one signing now first, retired ones after.
 */
export const certificateKeySet = z.object({ keys: z.array(z.unknown()) });
export interface CertificateKeySet {
  keys: (Ed25519PublicJwk & Record<string, unknown>)[];
}

/** GET /_emulator/certificates/revoked — `{data: [{id, revoked_at}]}`. */
export const revokedCertificate = z.object({ id: z.string(), revoked_at: z.string() });
export type RevokedCertificate = z.output<typeof revokedCertificate>;

/** A certificate as it travels in a report and `GET /_emulator/homologation/{integration_id}`. */
export interface ReportCertificate {
  id: string;
  jws: string;
}

/** GET /_emulator/certificates — the operator's ledger, newest first. */
export interface CertificateView {
  id: string;
  integration_id: string;
  store_id: string;
  system: string;
  environment: 'test' | 'live';
  kid: string;
  report_sha256: string;
  issued_at: string;
  revoked_at: string | null;
  jws: string;
}

/** POST /_emulator/certificates/rotate-key — 201: the key that signs from now on; the others stay published. */
export interface RotatedCertificateKey {
  kid: string;
  created_at: string;
  /** The keys retired by this rotation (still in the JWKS: what they signed stays verifiable). */
  retired: string[];
}
