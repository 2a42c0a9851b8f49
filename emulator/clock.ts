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
  /** The real time a manual clock stands at before its offset (the time of start-up or reset). */
  frozenAt(): number;
  /**
   * Takes a state saved elsewhere (another process of the sandbox moved the clock); listeners are
   * told when that moves the time forward.
   */
  adopt(state: { offsetMs: number; frozenAt: number }): void;
  onAdvance(listener: () => void): () => void;
}

export function createClock(mode: ClockMode, realNow: () => number = Date.now, initialOffsetMs = 0, initialFrozenAt?: number): Clock {
  let offset = initialOffsetMs;
  // A manual clock stands still at the real time of start-up until advanced.
  let frozenAt = initialFrozenAt ?? realNow();
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
    frozenAt: () => frozenAt,
    adopt(state) {
      if (state.offsetMs === offset && state.frozenAt === frozenAt) return;
      const before = (mode === 'manual' ? frozenAt : realNow()) + offset;
      offset = state.offsetMs;
      frozenAt = state.frozenAt;
      if ((mode === 'manual' ? frozenAt : realNow()) + offset > before) for (const listener of listeners) listener();
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
