import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { rawPublicKey } from './claim-secret.js';

// What an approval hands over (a credential and a store token) waits for the integrator's first read.
// The sandbox never keeps it in clear: it is sealed to the request's X25519 public key (an ephemeral
// key pair, X25519, HKDF-SHA256, AES-256-GCM, the request's id as associated data), and only the
// claim secret, which the sandbox does not keep, derives the private key that opens it. A backup or a
// look at the database shows ciphertext that nobody without the claim secret can read.

const INFO = 'merchant-kit access request seal';
const VERSION = 1;

// SPKI for an X25519 public key is this prefix and the 32 raw bytes (RFC 8410).
const X25519_SPKI = Buffer.from('302a300506032b656e032100', 'hex');

function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error('an X25519 public key is 32 bytes');
  return createPublicKey({ key: Buffer.concat([X25519_SPKI, raw]), format: 'der', type: 'spki' });
}

function keyOf(shared: Buffer, ephemeral: Buffer, recipient: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), INFO, 32));
}

/** Seals `plain` for the holder of the private key of `recipient` (raw X25519): version ‖ ephemeral ‖ nonce ‖ tag ‖ ciphertext. */
export function seal(plain: Buffer, recipient: Buffer, associated: string): Buffer {
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralRaw = rawPublicKey(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: publicKeyFromRaw(recipient) });
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(shared, ephemeralRaw, recipient), nonce);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), ephemeralRaw, nonce, cipher.getAuthTag(), body]);
}

/** Opens what `seal` made for this private key and associated data; throws when either is not the one sealed to. */
export function open(sealed: Buffer, privateKey: KeyObject, associated: string): Buffer {
  if (sealed.length < 1 + 32 + 12 + 16 || sealed[0] !== VERSION) throw new Error('not a sealed box of this version');
  const ephemeralRaw = sealed.subarray(1, 33);
  const nonce = sealed.subarray(33, 45);
  const tag = sealed.subarray(45, 61);
  const shared = diffieHellman({ privateKey, publicKey: publicKeyFromRaw(ephemeralRaw) });
  const decipher = createDecipheriv('aes-256-gcm', keyOf(shared, ephemeralRaw, rawPublicKey(privateKey)), nonce);
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(61)), decipher.final()]);
}
