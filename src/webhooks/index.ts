// Webhook signing and verification, shared by the emulator's dispatcher and the CLI's listener.
export {
  SIGNATURE_TOLERANCE_SECONDS,
  SIGNATURE_VERSION,
  hmacSha256Hex,
  parseSignatureHeader,
  sign,
  signatureHeader,
  verify,
  type RawBody,
  type VerifyInput,
  type VerifyResult,
} from './sign.js';
