// The sandbox's certificates (DESIGN: The operator's public test environment): verification with
// node:crypto alone, and the canonical JSON their report digest is computed over.
export { verifyCertificate, certificateOf, type CertificateProblem, type CertificateVerification, type VerifyCertificateOptions } from './verify.js';
export { canonicalJson, reportSha256 } from './canonical-json.js';
export { jwkThumbprint } from './jwk.js';
