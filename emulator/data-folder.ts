// The one entry to an embedded emulator's data folder (`--data DIR`), for the CLI and the server: its
// pid file, its files, its export and the restore of a bundle into it. With emulator/open.ts, the only
// module outside emulator/adapters/ that imports an adapter; the driver itself loads only when an
// export or a restore needs it (`emulator stop` does not).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveOptions, type EmulatorOptions } from './emulator.js';
import type { Bundle } from './bundle/format.js';
import type { ExportedBundle } from './bundle/export.js';
import type { RestoredIntegration } from './bundle/restore.js';
import { recoverInterruptedRestore as recoverRestore, restoreIntoDataDir as restoreFolder } from './bundle/restore-folder.js';
import { SQLITE_FOLDER } from './adapters/sqlite/folder-files.js';

/** The file in the data folder that names the process serving it (`merchant-kit emulator stop`). */
export const PID_FILE = 'emulator.pid';

/** The pid written in `dataDir`, or null when there is none (or it is not a pid). */
export function readPidFile(dataDir: string): number | null {
  const file = join(dataDir, PID_FILE);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Whether a process with this pid exists (EPERM: it does, and belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * After a reboot a pid may belong to another program: where /proc tells the command line (Linux),
 * only a command that names merchant-kit and the emulator is one. Elsewhere the pid file is trusted.
 */
export function looksLikeEmulator(pid: number): boolean {
  const file = `/proc/${pid}/cmdline`;
  if (!existsSync(file)) return true;
  try {
    const command = readFileSync(file, 'utf8');
    return command.includes('merchant-kit') && command.includes('emulator');
  } catch {
    return true;
  }
}

/**
 * The pid of another running emulator that serves `dataDir`, or null. A second emulator on the same
 * folder would keep its own caches and outbox over the same files, and a `--from` would replace the
 * state under the first one's feet: the start is refused instead. A stale pid file (the process is
 * gone, or the pid now belongs to another program) is no owner.
 */
export function otherEmulatorServing(dataDir: string): number | null {
  const pid = readPidFile(dataDir);
  if (pid === null || pid === process.pid) return null;
  return processAlive(pid) && looksLikeEmulator(pid) ? pid : null;
}


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
