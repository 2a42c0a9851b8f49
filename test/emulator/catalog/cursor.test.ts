import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, page } from '../../../emulator/catalog/cursor.js';
import { ApiError } from '../../../src/contract/errors.js';

describe('cursors', () => {
  const id = 'prd_01M80Y3N8H3GJZMEP5BJH2SCKN';

  it('round-trips an id and starts from the beginning without one', () => {
    expect(decodeCursor(encodeCursor(id), 'product')).toBe(id);
    expect(decodeCursor(undefined, 'product')).toBe('');
  });

  it.each([['garbage'], [encodeCursor('cat_01M80Y3N8H3GJZMEP5BJH2SCKN')], [`${encodeCursor(id)}=`], ['']])('rejects %s with invalid_cursor', (cursor) => {
    expect(() => decodeCursor(cursor, 'product')).toThrow(ApiError);
    try {
      decodeCursor(cursor, 'product');
    } catch (error) {
      expect((error as ApiError).code).toBe('invalid_cursor');
    }
  });

  it('gives next_cursor only when more rows were read than the limit', () => {
    expect(page([{ id: 'a' }, { id: 'b' }], 2).next_cursor).toBeNull();
    expect(page([{ id: 'a' }, { id: 'b' }, { id: 'c' }], 2)).toEqual({ rows: [{ id: 'a' }, { id: 'b' }], next_cursor: encodeCursor('b') });
  });
});
