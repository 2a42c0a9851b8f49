import { ApiError } from '../../src/contract/errors.js';
import { isId, type IdKind } from '../../src/contract/ids.js';

/** An opaque cursor: the base64url of the last id of the page. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

/** The id after which the page starts ('' for the first page); 400 `invalid_cursor` otherwise. */
export function decodeCursor(cursor: string | undefined, kind: IdKind): string {
  if (cursor === undefined) return '';
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId(kind, id) || encodeCursor(id) !== cursor) throw ApiError.of('invalid_cursor');
  return id;
}

/** Cuts the `limit + 1` rows read into a page and its `next_cursor` (null on the last page). */
export function page<T extends { id: string }>(rows: T[], limit: number): { rows: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { rows, next_cursor: null };
  const kept = rows.slice(0, limit);
  return { rows: kept, next_cursor: encodeCursor(kept[kept.length - 1].id) };
}
