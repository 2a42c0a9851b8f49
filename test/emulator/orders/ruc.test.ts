import { describe, expect, it } from 'vitest';
import { formatRuc, isValidRuc, rucCheckDigit } from '../../../emulator/orders/ruc.js';

describe('rucCheckDigit (SET modulo 11)', () => {
  it.each([
    ['80000519', 8], // 9·2+1·3+5·4+8·9 = 113; 113 mod 11 = 3; 11 − 3 = 8
    ['1234567', 9], // 7·2+6·3+5·4+4·5+3·6+2·7+1·8 = 112; mod 11 = 2; 11 − 2 = 9
    ['11', 6], // 1·2+1·3 = 5; 11 − 5 = 6
    ['6', 0], // 6·2 = 12; mod 11 = 1 → 0
    ['0', 0], // remainder 0 → 0
    ['10000000000', 9], // eleven digits: the leading 1 is back at weight 2 → 2; 11 − 2 = 9
  ])('the check digit of %s is %i', (base, digit) => {
    expect(rucCheckDigit(base)).toBe(digit);
  });

  it('refuses a base that is not digits', () => {
    expect(() => rucCheckDigit('80-1')).toThrow(RangeError);
  });

  it('validates formatted RUCs', () => {
    expect(formatRuc('80000519')).toBe('80000519-8');
    expect(isValidRuc('80000519-8')).toBe(true);
    expect(isValidRuc('80000519-7')).toBe(false);
    expect(isValidRuc('80000519')).toBe(false);
  });
});
