import type { Environment } from '../../src/contract/store.js';

// The certificates' ledger (DESIGN: The operator's public test environment): the sandbox's signing
// keys and the certificates it issued. Kept where the sandbox keeps its state, outside its two
// environments: never in a bundle, untouched by a reset or a restore (what was signed stays
// verifiable, and what was revoked stays revoked), one for every process of a team sandbox.

export interface SigningKeyRecord {
  /** RFC 7638 thumbprint of the public key. */
  kid: string;
  /** The Ed25519 private key, PKCS #8 DER: it never leaves the ledger (no route, bundle, log or report shows it). */
  privateKey: Buffer;
  /** The public key, as a JWK's `x` (base64url of the 32 raw bytes). */
  x: string;
  /** Real time (ms). */
  createdAt: number;
  /** When a rotation replaced it (ms); null for the key that signs now. */
  retiredAt: number | null;
}

export type NewSigningKey = Omit<SigningKeyRecord, 'retiredAt'>;

export interface CertificateRecord {
  id: string;
  integrationId: string;
  storeId: string;
  system: string;
  environment: Environment;
  /** The observed session it certifies (its start, ms): one certificate per session. */
  sessionStartedAt: number;
  kid: string;
  jws: string;
  /** The certified report, as JSON text without its certificate: what `report_sha256` digests. */
  report: string;
  reportSha256: string;
  /** Real time (ms). */
  issuedAt: number;
  revokedAt: number | null;
}

export interface CertificateLedger {
  /** The key that signs now; the first call on a new sandbox makes it with `make` (once for every process). */
  currentKey(make: () => NewSigningKey): Promise<SigningKeyRecord>;
  /** Every key, the one signing now first, then the retired ones, newest first. */
  keys(): Promise<SigningKeyRecord[]>;
  /** `key` signs from now on; the key that signed until now is retired (and stays published). Answers the kids retired. */
  rotate(key: NewSigningKey, now: number): Promise<string[]>;
  /**
   * Keeps the certificate unless its session already has one; answers the session's certificate
   * either way (whoever issued it first, on whatever process).
   */
  issue(certificate: CertificateRecord): Promise<CertificateRecord>;
  bySession(integrationId: string, sessionStartedAt: number): Promise<CertificateRecord | undefined>;
  byId(id: string): Promise<CertificateRecord | undefined>;
  /** Newest first. */
  list(limit: number): Promise<CertificateRecord[]>;
  /** Marks it revoked (the first time counts; revoking again changes nothing); undefined for an unknown id. */
  revoke(id: string, now: number): Promise<CertificateRecord | undefined>;
  /** The revoked certificates, oldest revocation first. */
  revoked(): Promise<{ id: string; revokedAt: number }[]>;
}
