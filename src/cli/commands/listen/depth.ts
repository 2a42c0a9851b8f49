/**
 * Deepest nesting the listener and `feed tail` accept in an event. A real event is about eight
 * levels deep (envelope → data → order → items → options → option); 128 is serde_json's default
 * and leaves room for additions. Deeper bodies are refused before anything recursive
 * (`JSON.stringify`, a printer, the app's own parser) sees them.
 */
export const MAX_EVENT_DEPTH = 128;

/**
 * Whether JSON text nests arrays/objects deeper than `max`. One pass over the characters, no
 * recursion, so a hostile 100,000-level body costs a loop, never the stack. Brackets inside
 * strings (escapes included) are not counted; malformed text is left to `JSON.parse`.
 *
 * @example
 * nestedDeeperThan('{"a":[1]}', 1) // → true
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
