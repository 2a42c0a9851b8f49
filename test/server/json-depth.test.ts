import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/server/json-depth.js';

// DESIGN, Storage and the team sandbox: a body nested deeper than 1,000 levels is refused before
// parsing. The scan counts levels in one pass over the bytes; brackets inside strings are text.

const bytes = (text: string) => Buffer.from(text, 'utf8');
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('nestedDeeperThan', () => {
  it.each([
    ['{}', 1, false],
    ['{}', 0, true],
    ['[[]]', 1, true],
    ['[[]]', 2, false],
    ['{"a":[{"b":[]}]}', 4, false],
    ['{"a":[{"b":[]}]}', 3, true],
    ['[],[],[],[]', 1, false],
    ['"[[[[[[" ', 1, false],
    ['{"a":"\\"[[[[["}', 1, false],
    ['{"a":"\\\\","b":[[]]}', 2, true],
    ['["\\\\\\"[[["]', 1, false],
    ['["\\\\"[[["]', 1, true],
    ['["abc [[[', 1, false],
    ['{"ñandú":"[[ü]]","b":["€"]}', 2, false],
    ['{"ñandú":"[[ü]]","b":[["€"]]}', 2, true],
  ])('%s with a bound of %i → %s', (text, max, deeper) => {
    expect(nestedDeeperThan(bytes(text), max)).toBe(deeper);
  });

  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more by default`, () => {
    expect(nestedDeeperThan(bytes(arrays(MAX_JSON_DEPTH)))).toBe(false);
    expect(nestedDeeperThan(bytes(arrays(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(nestedDeeperThan(bytes(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH - 1)}1${'}'.repeat(MAX_JSON_DEPTH)}`))).toBe(false);
    expect(nestedDeeperThan(bytes(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`))).toBe(true);
  });

  it('reads a string the same as its UTF-8 bytes', () => {
    for (const text of ['{"ñ":"[[ü"}', '[["€"]]', `{"a":"\\\\","b":[[]]}`]) {
      for (const max of [1, 2, 3]) expect(nestedDeeperThan(text, max)).toBe(nestedDeeperThan(bytes(text), max));
    }
  });

  it('counts levels, not brackets in all: a million siblings are one level deep', () => {
    expect(nestedDeeperThan(bytes(`[${'[],'.repeat(1_000_000)}[]]`))).toBe(false);
  });
});
