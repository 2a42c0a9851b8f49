import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

/** An AES-256-GCM box: random 12-byte IV per write, 16-byte auth tag, all base64. */
export interface SealedBox {
  iv: string;
  tag: string;
  data: string;
}

/**
 * The 32-byte key from `MERCHANT_KIT_MASTER_KEY`: 64 hex characters or base64 of 32 bytes are used
 * as they are; any other text is a passphrase stretched with scrypt.
 */
export function keyFromText(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  const b64 = /^[A-Za-z0-9+/_-]{43}=?$/.test(t) ? Buffer.from(t, 'base64') : null;
  if (b64 && b64.length === 32) return b64;
  return scryptSync(t, 'merchant-kit profile key v1', 32);
}

/** Encrypts `plain` under `key`; `aad` binds the box to its profile (name, base URL, key id). */
export function seal(plain: string, key: Buffer, aad: string): SealedBox {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** The plain text, or `null` when the box was altered, the AAD differs or the key is another. */
export function open(box: SealedBox, key: Buffer, aad: string): string | null {
  try {
    const iv = Buffer.from(box.iv, 'base64');
    const tag = Buffer.from(box.tag, 'base64');
    if (iv.length !== 12 || tag.length !== 16) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(box.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
