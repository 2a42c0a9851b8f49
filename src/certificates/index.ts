// The sandbox's certificates (DESIGN: The operator's public test environment): verification with
// node:crypto alone, and the digest of the report they certify.
export { verifyCertificate, certificateOf, type CertificateProblem, type CertificateVerification, type VerifyCertificateOptions } from './verify.js';
export { reportSha256 } from './report-digest.js';
export { jwkThumbprint } from './jwk.js';
