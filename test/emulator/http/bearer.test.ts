import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../../emulator/http/bearer.js';

// One rule for every token's Authorization header (issue 24: the admin token alone wanted `Bearer`).

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['bEaReR abc', 'abc'],
    ['Bearer    abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['Bearer sixteen chars ok', 'sixteen chars ok'],
    ['Bearer svk_test_a.svs_test_b', 'svk_test_a.svs_test_b'],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([[undefined], [''], ['Bearer'], ['Bearer '], ['Bearerabc'], ['Basic abc'], ['Bearer\tabc'], ['Token abc']])('reads no token in %j', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});
