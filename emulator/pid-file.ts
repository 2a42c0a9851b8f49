// The data folder's pid file (`merchant-kit emulator stop`, and a start that checks no other emulator
// serves the folder). Node's own modules only: `emulator stop` loads this and nothing of the emulator.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
