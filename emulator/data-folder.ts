// The one entry to an embedded emulator's data folder (`--data DIR`), for the CLI and the server: its
// pid file, its files, its export and the restore of a bundle into it. With emulator/open.ts, the only
// module outside emulator/adapters/ that imports an adapter; the driver itself loads only when an
// export or a restore needs it (`emulator stop` does not).
import { resolveOptions, type EmulatorOptions } from './emulator.js';
import type { Bundle } from './bundle/format.js';
import type { ExportedBundle } from './bundle/export.js';
import type { RestoredIntegration } from './bundle/restore.js';
import { recoverInterruptedRestore as recoverRestore, restoreIntoDataDir as restoreFolder } from './bundle/restore-folder.js';
import { SQLITE_FOLDER } from './adapters/sqlite/folder-files.js';

// The pid file's helpers are a module of their own (`emulator stop` loads them alone: no emulator, no zod).
export { looksLikeEmulator, otherEmulatorServing, PID_FILE, processAlive, readPidFile } from './pid-file.js';

export { SEED_FILE } from './adapters/sqlite/seed-file.js';
export { secureDataDir } from './adapters/sqlite/data-dir.js';

/** The state kept in the data folder `dir`, as a bundle, read without starting an emulator (`emulator export --data`). */
export async function exportDataDir(dir: string): Promise<ExportedBundle> {
  return (await import('./adapters/sqlite/export-dir.js')).exportDataDir(dir);
}

/**
 * Before a start on `dataDir`: finishes a restore that was committed, discards one that was not
 * (bundle/restore-folder.ts). Returns what happened, in a line for stderr, or null.
 */
export function recoverInterruptedRestore(dataDir: string): string | null {
  return recoverRestore(dataDir, SQLITE_FOLDER);
}

/**
 * Restores `bundle` into the data folder `dataDir`, all or nothing, before an emulator opens it.
 * Returns the restored integrations with the credentials handed out (shown once).
 */
export async function restoreIntoDataDir(dataDir: string, bundle: Bundle, from: string, options: EmulatorOptions): Promise<RestoredIntegration[]> {
  const [{ SqliteStorage }, { sealDatabases }, { openEmulatorWith }] = await Promise.all([
    import('./adapters/sqlite/index.js'),
    import('./adapters/sqlite/folder-files.js'),
    import('./open.js'),
  ]);
  return restoreFolder(dataDir, bundle, from, {
    ...SQLITE_FOLDER,
    async open(dir) {
      let storage: InstanceType<typeof SqliteStorage> | undefined;
      const emulator = await openEmulatorWith(resolveOptions({ clock: options.clock, seed: options.seed, data: dir }), (context) => {
        storage = new SqliteStorage({ dataDir: dir }, context);
        return storage;
      });
      return { emulator, seal: () => sealDatabases(storage!) };
    },
  });
}
