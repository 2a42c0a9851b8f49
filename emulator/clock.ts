import type { ClockMode } from '../src/contract/control.js';

/** The one source of time in the emulator: system time plus an offset, or a manual clock. */
export type { ClockMode };

export interface Clock {
  readonly mode: ClockMode;
  /** Milliseconds since the epoch, on the emulator's time line. */
  now(): number;
  /** How far the clock has been advanced since start-up or the last reset. */
  offsetMs(): number;
  advance(ms: number): void;
  /** Back to the start: the real time now, offset zero. */
  reset(): void;
  onAdvance(listener: () => void): () => void;
}

export function createClock(mode: ClockMode, realNow: () => number = Date.now, initialOffsetMs = 0): Clock {
  let offset = initialOffsetMs;
  // A manual clock stands still at the real time of start-up until advanced.
  let frozenAt = realNow();
  const listeners = new Set<() => void>();
  return {
    mode,
    now: () => (mode === 'manual' ? frozenAt : realNow()) + offset,
    offsetMs: () => offset,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
      offset += ms;
      for (const listener of listeners) listener();
    },
    reset() {
      offset = 0;
      frozenAt = realNow();
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The fixed window of `windowMs` that holds `now`, and the seconds until it ends. */
export function fixedWindow(now: number, windowMs = 60_000): { start: number; retryAfterSeconds: number } {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
}
