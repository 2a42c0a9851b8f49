import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ENVIRONMENTS } from '../../../src/contract/store.js';
import { encodeState, type ExportedBundle } from '../../bundle/export.js';
import { BundleError, type BundlePayload } from '../../bundle/format.js';
import { loadClockOffset } from './clock-file.js';
import { dumpDatabase } from './dump.js';
import { checkIntact } from './open.js';

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
