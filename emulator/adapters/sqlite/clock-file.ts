import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../src/files/atomic.js';
import type { ClockStore } from '../../store/coordination.js';

export const CLOCK_FILE = 'clock.json';

/** Why a saved clock cannot be used, or null when it can. */
function problemOf(text: string): string | null {
  if (text.trim() === '') return 'it is empty';
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    return 'it is not valid JSON (truncated?)';
  }
  const offset = (saved as { offset_ms?: unknown } | null)?.offset_ms;
  if (offset === undefined) return 'it has no offset_ms';
  if (typeof offset !== 'number' || !Number.isFinite(offset)) return 'offset_ms is not a number';
  if (offset < 0) return 'offset_ms is negative';
  return null;
}

/**
 * How far the clock had been advanced when the emulator stopped. Kept beside the databases so that a
 * restart with `--data` never moves the emulator's time backwards: due retries, expiries and
 * retention computed on an advanced clock stay where they were. No file means no advance; a file
 * that cannot be read is an error naming it, never a silent 0 (which would bring an expired
 * credential back to life).
 */
export function loadClockOffset(dataDir: string | null): number {
  const file = dataDir ? join(dataDir, CLOCK_FILE) : null;
  if (!file || !existsSync(file)) return 0;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the clock file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const problem = problemOf(text);
  if (problem) {
    throw new Error(
      `the clock file ${file} is damaged (${problem}): fix it ({"offset_ms": N}, the advance in milliseconds) or remove it to run on the real time again`,
    );
  }
  return (JSON.parse(text) as { offset_ms: number }).offset_ms;
}

/** Saves the advance atomically (temp file, fsync, rename): a crash leaves the old value or the new one. */
export function saveClockOffset(dataDir: string | null, offsetMs: number): void {
  if (!dataDir) return;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileAtomic(join(dataDir, CLOCK_FILE), `${JSON.stringify({ offset_ms: offsetMs })}\n`);
}

/**
 * The embedded adapter's clock state: the advance in `clock.json` beside the databases (none in
 * memory). The mode is the process's own (`--clock`), and a manual clock stands at the real time of
 * start-up: only the advance is kept across restarts.
 */
export function fileClockStore(dataDir: string | null): ClockStore {
  return {
    async load() {
      const offsetMs = loadClockOffset(dataDir);
      return offsetMs === 0 ? null : { mode: 'system', offsetMs, frozenAt: Date.now() };
    },
    async save(state) {
      saveClockOffset(dataDir, state.offsetMs);
    },
  };
}
