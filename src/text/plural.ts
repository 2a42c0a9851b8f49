/**
 * A count and its noun, singular for one: `plural(1, 'order')` is `1 order`, `plural(1200,
 * 'category', 'categories')` `1,200 categories`. Every count the toolkit prints goes through it (the
 * CLI, the checks' reasons; never `order(s)`). No dependencies: the checks entry imports it too.
 */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : words}`;
}
