import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'clock.json';

/**
 * How far the clock had been advanced when the emulator stopped. Kept beside the databases so that a
 * restart with `--data` never moves the emulator's time backwards: due retries, expiries and
 * retention computed on an advanced clock stay where they were.
 */
export function loadClockOffset(dataDir: string | null): number {
  if (!dataDir || !existsSync(join(dataDir, FILE))) return 0;
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as { offset_ms?: unknown };
    return typeof saved.offset_ms === 'number' && Number.isFinite(saved.offset_ms) && saved.offset_ms >= 0 ? saved.offset_ms : 0;
  } catch {
    return 0;
  }
}

export function saveClockOffset(dataDir: string | null, offsetMs: number): void {
  if (!dataDir) return;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, FILE);
  writeFileSync(file, `${JSON.stringify({ offset_ms: offsetMs })}\n`, { mode: 0o600 });
  // A file of an older version keeps its mode on rewrite: owner-only like the databases beside it.
  chmodSync(file, 0o600);
}
