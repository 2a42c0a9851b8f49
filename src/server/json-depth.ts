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

/**
 * True when the JSON text (its UTF-8 bytes) opens arrays and objects more than `max` levels deep.
 * One pass, nothing allocated: brackets inside strings are text (a backslash skips the byte after
 * it, so `\"` never ends a string). It only counts: whether the text is JSON is JSON.parse's to say.
 * Bytes, not characters: in UTF-8 no byte of a multi-byte character is an ASCII bracket or quote.
 */
export function nestedDeeperThan(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return false;
}
