import { ApiError } from '../../src/contract/errors.js';

/** Opaque cursors: base64url of a small versioned text, so clients never build them by hand. */
function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function decode(cursor: string, pattern: RegExp): RegExpExecArray {
  const m = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? pattern.exec(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  if (!m) throw ApiError.of('invalid_cursor');
  return m;
}

/** GET /orders: the `number` of the last order of the page (orders are listed by number, oldest first). */
export const encodeOrderCursor = (number: number) => encode(`o1:${number}`);
export function decodeOrderCursor(cursor: string): number {
  const n = Number(decode(cursor, /^o1:([1-9][0-9]{0,14})$/)[1]);
  if (!Number.isSafeInteger(n)) throw ApiError.of('invalid_cursor');
  return n;
}

/** GET /events: the feed position (`seq`) of the last event handed out, and its creation time. */
export interface FeedPosition {
  seq: number;
  createdAt: number;
}
export const encodeFeedCursor = (p: FeedPosition) => encode(`e1:${p.seq}:${p.createdAt}`);
export function decodeFeedCursor(cursor: string): FeedPosition {
  const m = decode(cursor, /^e1:([1-9][0-9]{0,14}):([0-9]{1,15})$/);
  const p = { seq: Number(m[1]), createdAt: Number(m[2]) };
  if (!Number.isSafeInteger(p.seq) || !Number.isSafeInteger(p.createdAt)) throw ApiError.of('invalid_cursor');
  return p;
}
