import { describe, expect, it } from 'vitest';
import { inOffsetOf } from '../../src/cli/commands/listen/times.js';

// issue 14: listen prints times in the offset of the service's own dates, not the machine's zone.
describe('inOffsetOf', () => {
  it.each([
    ['2026-11-22T10:01:08.502Z', '2026-11-22T07:00:00.000-03:00', '2026-11-22T07:01:08.502-03:00'],
    ['2026-11-22T01:30:00.000Z', '2026-11-21T20:00:00-03:00', '2026-11-21T22:30:00.000-03:00'],
    ['2026-11-22T10:01:08.502Z', '2026-11-22T15:30:00+05:30', '2026-11-22T15:31:08.502+05:30'],
    ['2026-11-22T10:01:08.502Z', '2026-11-22T10:00:00Z', '2026-11-22T10:01:08.502Z'],
  ])('%s in the offset of %s is %s', (iso, reference, expected) => {
    expect(inOffsetOf(iso, reference)).toBe(expected);
  });

  it('without a reference (a refused request), the service\'s zone: America/Asuncion', () => {
    expect(inOffsetOf('2026-11-22T10:01:08.502Z', undefined)).toBe('2026-11-22T07:01:08.502-03:00');
    expect(inOffsetOf('not a date', undefined)).toBe('not a date');
  });
});
