import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../../src/cli/commands/replay/json-text.js';

describe('jsonText', () => {
  it('writes the same text as JSON.stringify for any parsed JSON value', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const parsed = JSON.parse(JSON.stringify(value));
      expect(jsonText(parsed)).toBe(JSON.stringify(parsed));
    }), { numRuns: 500 });
  });

  it('writes a value nested 100,000 levels deep, where JSON.stringify overflows the stack', () => {
    const text = `${'[{"a":'.repeat(50_000)}1${'}]'.repeat(50_000)}`;
    const value = JSON.parse(text);
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(jsonText(value)).toBe(text);
  });
});
