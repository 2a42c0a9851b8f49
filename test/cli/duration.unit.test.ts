import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { durationOption, formatDuration } from '../../src/cli/commands/emulator/duration.js';

// The durations `emulator clock advance` and `emulator wait --timeout` read (test/cli/emulator-sandbox
// and emulator-detach run them through the built CLI).
describe('durationOption', () => {
  const advance = durationOption('<duration>', 0, Number.MAX_SAFE_INTEGER);

  it.each([
    ['90s', 90],
    ['15m', 900],
    ['2h', 7200],
    ['1d', 86_400],
    ['1h30m', 5400],
    ['45', 45],
    ['1d2h3m4s', 93_784],
  ])('%s is %i seconds', (text, seconds) => {
    expect(advance(text)).toBe(seconds);
  });

  it.each(['soon', '1h30', '1.5h', '', ' ', '5m1h'])('%j is not a duration: a usage error naming the forms', (text) => {
    expect(() => advance(text)).toThrow(InvalidArgumentError);
    expect(() => advance(text)).toThrow('<duration> must be a duration such as 90s, 15m, 2h, 1d, 1h30m or a number of seconds.');
  });

  it('a duration out of the range is a usage error naming the range', () => {
    const timeout = durationOption('--timeout', 1, 3600);
    expect(timeout('1h')).toBe(3600);
    expect(() => timeout('0')).toThrow('--timeout must be from 1s to 1h.');
    expect(() => timeout('61m')).toThrow('--timeout must be from 1s to 1h.');
  });

  it('formatDuration writes the largest units first and leaves zero parts out', () => {
    expect([0, 45, 5400, 93_784].map(formatDuration)).toEqual(['0s', '45s', '1h30m', '1d2h3m4s']);
  });
});
