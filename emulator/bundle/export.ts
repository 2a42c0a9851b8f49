import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Emulator } from '../emulator.js';
import { loadClockOffset } from '../clock-state.js';
import { formatDate } from '../../src/contract/dates.js';
import { ENVIRONMENTS } from '../../src/contract/store.js';
import { dumpDatabase } from './dump.js';
import { encodeBundle } from './envelope.js';
import { BundleError, type BundlePayload } from './format.js';

export interface ExportedBundle {
  bytes: Buffer;
  sha256: string;
}

/** The whole state of a running emulator: both environments' databases and its clock. */
export function exportBundle(emulator: Emulator): ExportedBundle {
  const now = emulator.clock.now();
  const payload: BundlePayload = {
    clock: { now: formatDate(now), now_ms: now, mode: emulator.clock.mode, offset_seconds: Math.round(emulator.clock.offsetMs() / 1000) },
    environments: Object.fromEntries(Object.values(emulator.envs).map((env) => [env.name, dumpDatabase(env.db)])),
  };
  return encodeBundle(payload, formatDate(Date.now()));
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
  const offsetMs = loadClockOffset(dir);
  const now = Date.now() + offsetMs;
  const environments: BundlePayload['environments'] = {};
  for (const [name, file] of files) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      environments[name] = dumpDatabase(db);
    } finally {
      db.close();
    }
  }
  const payload: BundlePayload = {
    clock: { now: formatDate(now), now_ms: now, mode: 'system', offset_seconds: Math.round(offsetMs / 1000) },
    environments,
  };
  return encodeBundle(payload, formatDate(Date.now()));
}
