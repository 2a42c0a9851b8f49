// What the mixed bench needs of a list page (`{"data":[…],"next_cursor":…,…}`), read from its bytes
// as they arrive, without decoding or parsing the page and without joining its chunks: a page of
// products is ~80 KB and one of the feed tens of KB (two socket reads each). Turning them into
// strings and objects made up a quarter of the bench's own CPU, taken from the emulator and
// PostgreSQL on a shared machine; joining the chunks would copy every page once more.

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
 * `next_cursor` of a page whose envelope ends with it (the catalog's pages), found from the end of
 * its chunks (in the last one, unless it is cut there): a string, or null (null, or no such key).
 */
export class CursorAtEnd {
  constructor() {
    this.chunks = [];
  }

  write(chunk) {
    this.chunks.push(chunk);
  }

  end() {
    const { chunks } = this;
    for (let from = chunks.length - 1; from >= 0; from--) {
      const bytes = from === chunks.length - 1 ? chunks[from] : Buffer.concat(chunks.slice(from));
      const at = bytes.lastIndexOf(NEXT_CURSOR);
      // Not in the last chunk: the key may be cut between two, so the search goes on over the joined tail.
      if (at < 0) continue;
      this.chunks = null;
      return { nextCursor: cursorAt(bytes, at + NEXT_CURSOR.length) };
    }
    this.chunks = null;
    return { nextCursor: null };
  }
}

/** The string value that starts at `i` (after blanks), or null for anything else. */
function cursorAt(bytes, i) {
  while (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09) i++;
  if (bytes[i] !== QUOTE) return null;
  for (let j = i + 1; j < bytes.length; j++) {
    if (bytes[j] === BACKSLASH) j++;
    else if (bytes[j] === QUOTE) return JSON.parse(bytes.toString('utf8', i, j + 1));
  }
  throw new Error('the page\'s next_cursor is not closed');
}

/**
 * One pass over a JSON object's bytes, chunk by chunk: `items`, the objects in its top-level `data`
 * array, and `nextCursor`, its top-level `next_cursor` (a string, or null when null or absent).
 * Exactly what `JSON.parse` gives as `data.length` (for a list of objects) and `next_cursor`;
 * strings are skipped byte by byte (a quote after a backslash is escaped), nothing is decoded but
 * the top-level keys and the cursor.
 */
export class ListPageReader {
  constructor() {
    this.depth = 0;
    this.items = 0;
    this.nextCursor = null;
    this.key = null; // the top-level key whose value comes next
    this.value = false; // past that key's colon
    this.member = null; // the top-level key whose array or object we are in
    this.inString = false;
    this.escaped = false;
    this.kept = null; // the parts of a top-level string (a key or the cursor), between its quotes
  }

  write(chunk) {
    const n = chunk.length;
    // The state in locals for the loop (a page is tens of KB), back in the object at the end.
    let { depth, items, inString, escaped } = this;
    let i = 0;
    while (i < n) {
      if (inString) {
        let j = i;
        for (; j < n; j++) {
          const c = chunk[j];
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) break;
        }
        if (this.kept) this.kept.push(chunk.subarray(i, j));
        if (j === n) break; // the string goes on in the next chunk
        inString = false;
        i = j + 1;
        if (this.kept) this.string(this.kept.length === 1 ? this.kept[0] : Buffer.concat(this.kept));
        continue;
      }
      const c = chunk[i++];
      if (c === QUOTE) {
        inString = true;
        this.kept = depth === 1 ? [] : null;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (depth === 2 && c === OPEN_OBJECT && this.member === 'data') items++;
        if (depth === 1) this.member = this.key;
        depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
        if (depth === 1) this.member = null;
      } else if (depth === 1) {
        if (c === COLON) this.value = true;
        else if (c === COMMA) {
          this.key = null;
          this.value = false;
        } else if (c === NULL_START && this.key === 'next_cursor') this.nextCursor = null;
      }
    }
    Object.assign(this, { depth, items, inString, escaped });
  }

  /** A top-level string's bytes (without its quotes): a key, or a value. */
  string(bytes) {
    this.kept = null;
    if (!this.value) this.key = bytes.toString('utf8');
    else if (this.key === 'next_cursor') this.nextCursor = JSON.parse(`"${bytes.toString('utf8')}"`);
  }

  end() {
    if (this.depth !== 0 || this.inString) throw new Error('the page is not one whole JSON object');
    return { items: this.items, nextCursor: this.nextCursor };
  }
}

/** A reader (CursorAtEnd, ListPageReader) over `chunks`, one after the other: its `end()`. */
export function readChunks(Reader, chunks) {
  const reader = new Reader();
  for (const chunk of chunks) reader.write(chunk);
  return reader.end();
}
