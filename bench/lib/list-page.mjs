// What the mixed bench needs of a list page (`{"data":[…],"next_cursor":…,…}`), read from its bytes
// without decoding or parsing it: a page of products is ~80 KB and one of the feed tens of KB, and
// turning them into strings and objects made up a quarter of the bench's own CPU, taken from the
// emulator and PostgreSQL on a shared machine.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const NULL_START = 0x6e; // n
const NEXT_CURSOR = Buffer.from('"next_cursor":');

/**
 * `next_cursor` of a list page whose envelope ends with it (the catalog's pages), found from the end:
 * a string, or null (null, or no such key).
 */
export function lastNextCursor(bytes) {
  const at = bytes.lastIndexOf(NEXT_CURSOR);
  if (at < 0) return null;
  let i = at + NEXT_CURSOR.length;
  while (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09) i++;
  if (bytes[i] !== QUOTE) return null;
  return JSON.parse(bytes.toString('utf8', i, stringEnd(bytes, i) + 1));
}

/** The index of the quote that closes the string opening at `start` (a quote after an odd run of backslashes is escaped). */
function stringEnd(bytes, start) {
  for (let i = start + 1; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  throw new Error('a string of the page is not closed');
}

/**
 * One pass over a JSON object's bytes: `items`, the objects in its top-level `data` array, and
 * `nextCursor`, its top-level `next_cursor` (a string, or null when null or absent). Exactly what
 * `JSON.parse` would give as `data.length` (for a list of objects) and `next_cursor`; strings are
 * skipped byte by byte, nothing is decoded but the cursor.
 */
export function readListPage(bytes) {
  let depth = 0;
  let items = 0;
  let nextCursor = null;
  let key = null; // the top-level key whose value comes next
  let value = false; // past that key's colon
  let member = null; // the top-level key whose array or object we are in
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      if (depth === 1) {
        if (!value) key = bytes.toString('utf8', i + 1, end);
        else if (key === 'next_cursor') nextCursor = JSON.parse(bytes.toString('utf8', i, end + 1));
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 2 && c === OPEN_OBJECT && member === 'data') items++;
      if (depth === 1) member = key;
      depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 1) member = null;
    } else if (depth === 1) {
      if (c === COLON) value = true;
      else if (c === COMMA) {
        key = null;
        value = false;
      } else if (c === NULL_START && key === 'next_cursor') nextCursor = null;
    }
  }
  if (depth !== 0) throw new Error('the page is not one whole JSON object');
  return { items, nextCursor };
}
