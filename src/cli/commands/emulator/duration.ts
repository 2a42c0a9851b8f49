import { InvalidArgumentError } from 'commander';

// Durations as people type them (`90s`, `15m`, `2h`, `1d`, `1h30m`, or plain seconds), for
// `emulator clock advance` and `emulator wait --timeout`. Light (no zod): parsed while commander
// reads the options, so a bad value is a usage error before any call.

const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Whole seconds of `90s`, `15m`, `2h`, `1d`, `1h30m`, `1d2h3m4s` or `3600`; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const value = text.trim().toLowerCase();
  if (/^\d+$/.test(value)) return Number(value);
  const m = DURATION.exec(value);
  if (!m || value === '') return null;
  const [, d, h, min, s] = m;
  return Number(d ?? 0) * UNIT_SECONDS.d + Number(h ?? 0) * UNIT_SECONDS.h + Number(min ?? 0) * UNIT_SECONDS.m + Number(s ?? 0);
}

/** A commander parser: a duration from `min` to `max` seconds, as whole seconds. */
export function durationOption(name: string, min: number, max: number) {
  return (text: string): number => {
    const seconds = parseDuration(text);
    if (seconds === null) throw new InvalidArgumentError(`${name} must be a duration such as 90s, 15m, 2h, 1d, 1h30m or a number of seconds.`);
    if (!Number.isSafeInteger(seconds) || seconds < min || seconds > max) {
      throw new InvalidArgumentError(`${name} must be from ${formatDuration(min)} to ${formatDuration(max)}.`);
    }
    return seconds;
  };
}

/** `5400` → `1h30m`, `0` → `0s`: the largest units first, zero parts left out. */
export function formatDuration(seconds: number): string {
  let left = Math.max(0, Math.round(seconds));
  if (left === 0) return '0s';
  let out = '';
  for (const [unit, size] of Object.entries(UNIT_SECONDS)) {
    const n = Math.floor(left / size);
    if (n > 0) out += `${n}${unit}`;
    left -= n * size;
  }
  return out;
}
