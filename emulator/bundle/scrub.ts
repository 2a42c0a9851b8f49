import { SECRET_CHARS } from '../../src/logging/redact.js';
import type { Cell } from './format.js';

// What a bundle never holds, whatever the storage: a credential's secret part, a webhook signing
// secret or a store token that shows up in any stored text (an idempotent rotate-secret answer, an
// order note someone pasted a token into) is replaced by this marker, and webhooks lose their signing
// secrets (a restore hands out new ones). Store tokens travel as their digests only, like credentials.

const SECRET = new RegExp(`\\b(?:svs|whsec|mks)_[${SECRET_CHARS}]+`, 'g');
export const REDACTED = '[redacted]';

function scrub(value: string): string {
  return value.includes('svs_') || value.includes('whsec_') || value.includes('mks_') ? value.replace(SECRET, REDACTED) : value;
}

/** One stored value as a bundle cell: bytes as hex, big integers as numbers, text scrubbed. */
export function cell(value: unknown): Cell {
  if (Buffer.isBuffer(value)) return { $hex: value.toString('hex') };
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return scrub(value);
  return value as Cell;
}

/**
 * Decision (docs/support.md): signing secrets stay out of the bundle; a restore gives every webhook
 * a new one and prints it once, like the fresh credentials.
 */
export function blankSigningSecrets(table: string, columns: string[], rows: Cell[][]): void {
  if (table !== 'webhooks') return;
  const blank: Record<string, Cell> = { secret: '', previous_secret: null, previous_expires_at: null };
  for (const [column, value] of Object.entries(blank)) {
    const i = columns.indexOf(column);
    if (i >= 0) for (const row of rows) row[i] = value;
  }
}

/** A bundle cell back as the value to store (hex back to bytes). */
export const cellValue = (c: Cell): unknown => (c !== null && typeof c === 'object' ? Buffer.from(c.$hex, 'hex') : c);

export const isCell = (c: unknown): c is Cell =>
  c === null || typeof c === 'string' || typeof c === 'number' ||
  (typeof c === 'object' && typeof (c as { $hex?: unknown }).$hex === 'string' && /^(?:[0-9a-f]{2})*$/i.test((c as { $hex: string }).$hex));
