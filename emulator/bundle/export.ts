import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Emulator } from '../emulator.js';
import { loadClockOffset } from '../store/sqlite/clock-file.js';
import { checkIntact } from '../store/sqlite/open.js';
import { formatDate } from '../../src/contract/dates.js';
import { ENVIRONMENTS } from '../../src/contract/store.js';
import { dumpDatabase } from '../store/sqlite/dump.js';
import { encodeBundle } from './envelope.js';
import { BundleError, type BundlePayload } from './format.js';

export interface ExportedBundle {
  bytes: Buffer;
  sha256: string;
}

/** The whole state of a running emulator: both environments' databases and its clock. */
export function exportBundle(emulator: Emulator): ExportedBundle {
  const environments = Object.fromEntries(Object.values(emulator.envs).map((env) => [env.name, dumpDatabase(env.db)]));
  return encodeState(environments, emulator.clock.now(), emulator.clock.mode, emulator.clock.offsetMs());
}

/**
 * The state kept in a data directory (`emulator start --data DIR`), read without starting an
 * emulator. The databases are opened read-only, so a running emulator on the same folder is fine.
 * The clock is the real time plus the offset the emulator saved.
 */
export function exportDataDir(dir: string): ExportedBundle {
  const files = ENVIRONMENTS.map((name) => [name, join(dir, `${name}.sqlite`)] as const);
  const missing = files.filter(([, file]) => !existsSync(file));
  if (missing.length) throw new BundleError(`${dir} is not an emulator data directory (no ${missing.map(([n]) => `${n}.sqlite`).join(', ')})`);
  let offsetMs: number;
  try {
    offsetMs = loadClockOffset(dir);
  } catch (error) {
    throw new BundleError((error as Error).message);
  }
  const now = Date.now() + offsetMs;
  const environments: BundlePayload['environments'] = {};
  for (const [name, file] of files) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      checkIntact(db, file);
      environments[name] = dumpDatabase(db);
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? '');
      throw code.startsWith('SQLITE_') ? new BundleError(`cannot read the database ${file}: ${(error as Error).message}`) : error;
    } finally {
      db.close();
    }
  }
  return encodeState(environments, now, 'system', offsetMs);
}

/** The bundle of `environments` with the clock at `now` (its mode and offset), made now. */
function encodeState(environments: BundlePayload['environments'], now: number, mode: string, offsetMs: number): ExportedBundle {
  const clock = { now: formatDate(now), now_ms: now, mode, offset_seconds: Math.round(offsetMs / 1000) };
  return encodeBundle({ clock, environments }, formatDate(Date.now()));
}
