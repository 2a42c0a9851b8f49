import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PID_FILE, readPidFile } from '../../../../emulator/server.js';
import { ExitError } from '../../errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * After a reboot a pid may belong to another program: where /proc tells the command line (Linux),
 * only a process whose command names merchant-kit and the emulator is signalled. Elsewhere the pid file is trusted.
 */
function notAnEmulator(pid: number): boolean {
  const file = `/proc/${pid}/cmdline`;
  if (!existsSync(file)) return false;
  try {
    const command = readFileSync(file, 'utf8');
    return !(command.includes('merchant-kit') && command.includes('emulator'));
  } catch {
    return false;
  }
}

const STOP_WAIT_MS = 15_000;

/** `merchant-kit emulator stop`: SIGTERM to the pid in the data folder's pid file, then waits for it to exit. */
export async function stopAction(options: { data: string; json?: boolean }): Promise<void> {
  const dir = resolve(options.data);
  const pid = readPidFile(dir);
  if (pid === null && existsSync(join(dir, PID_FILE))) {
    throw new ExitError(`${join(dir, PID_FILE)} holds no process id; nothing was stopped. Delete the file if the emulator is not running.`);
  }
  if (pid === null) throw new ExitError(`No running emulator found: ${join(dir, PID_FILE)} does not exist (an emulator started with --memory has no pid file).`);
  if (!alive(pid)) {
    rmSync(join(dir, PID_FILE), { force: true });
    throw new ExitError(`The emulator of ${dir} is not running (pid ${pid} is gone); removed its stale pid file.`);
  }
  if (notAnEmulator(pid)) {
    throw new ExitError(`pid ${pid} of ${join(dir, PID_FILE)} is not a merchant-kit process (a stale pid file?); nothing was stopped. Delete the file if the emulator is not running.`);
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch (error) {
    throw new ExitError(`Could not signal pid ${pid}: ${(error as Error).message}`);
  }
  const deadline = Date.now() + STOP_WAIT_MS;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new ExitError(`The emulator (pid ${pid}) did not stop within ${STOP_WAIT_MS / 1000} s.`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (options.json) process.stdout.write(`${JSON.stringify({ stopped: true, pid })}\n`);
  else process.stdout.write(`Emulator (pid ${pid}) stopped.\n`);
}
