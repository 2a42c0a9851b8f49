/**
 * DESIGN, Storage and the team sandbox: a body nested deeper than 1,000 levels is refused before it
 * is parsed (400 `malformed_json`), by the emulator (API and control API) and `merchant-kit proxy`.
 * Parsing 5 MB of nested arrays, then walking the result, held a process's event loop for seconds;
 * no request of the API nests more than a handful of levels.
 */
export const MAX_JSON_DEPTH = 1000;

/** The Spanish message of the refusal (the API's language). */
export const TOO_DEEP_MESSAGE = `El cuerpo anida arreglos u objetos a más de ${MAX_JSON_DEPTH} niveles.`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** JSON text as the scan reads it: a string, or its UTF-8 bytes (alike: no byte of a multi-byte character is ASCII). */
type Text = string | Uint8Array;

const codeAt = (text: Text, i: number): number => (typeof text === 'string' ? text.charCodeAt(i) : text[i]!);
const nextQuote = (text: Text, from: number): number => (typeof text === 'string' ? text.indexOf('"', from) : Buffer.prototype.indexOf.call(text, QUOTE, from));

/**
 * Where the string whose content starts at `from` ends (its closing quote), or -1. Found with
 * indexOf, not a loop over every character: a quote preceded by an odd run of backslashes is escaped.
 */
function endOfString(text: Text, from: number): number {
  for (let q = nextQuote(text, from); q !== -1; q = nextQuote(text, q + 1)) {
    let slashes = 0;
    for (let j = q - 1; j >= from && codeAt(text, j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/**
 * True when JSON text (a string, or its UTF-8 bytes) opens arrays and objects more than `max` levels
 * deep. One pass, no recursion, so a hostile body nested millions of levels deep costs a loop:
 * brackets inside strings are text (skipped with indexOf, escaped quotes included). It only counts:
 * whether the text is JSON is JSON.parse's to say.
 *
 * @example
 * nestedDeeperThan('{"a":[1]}', 1) // → true
 */
export function nestedDeeperThan(text: Text, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = typeof text === 'string' ? text.charCodeAt(i) : text[i]!;
    if (c === QUOTE) {
      i = endOfString(text, i + 1);
      if (i === -1) return false; // an unterminated string: JSON.parse refuses it
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}
