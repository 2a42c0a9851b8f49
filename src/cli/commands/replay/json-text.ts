/** Text written as is between values (brackets, commas, `"key":`). */
class Piece {
  constructor(readonly text: string) {}
}

/**
 * `JSON.stringify` for parsed JSON values, without recursion: a recording may hold a body nested
 * 100,000 levels deep (it is read with `JSON.parse`, which copes), and `JSON.stringify` would
 * overflow the stack on it. Same text as `JSON.stringify` for anything `JSON.parse` returns.
 *
 * @example
 * jsonText({ a: [1, 'x', null] }) // → '{"a":[1,"x",null]}'
 */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Piece) out.push(item.text);
    else if (item === null || typeof item !== 'object') out.push(JSON.stringify(item) ?? 'null');
    else if (Array.isArray(item)) {
      // Pushed backwards: popped as `[`, a, `,`, b, `]`.
      stack.push(new Piece(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Piece(','));
      }
      stack.push(new Piece('['));
    } else {
      const entries = Object.entries(item).filter(([, v]) => v !== undefined);
      stack.push(new Piece('}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i]!;
        stack.push(v, new Piece(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
      stack.push(new Piece('{'));
    }
  }
  return out.join('');
}
