import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { looksLikeEmulator, PID_FILE, processAlive as alive, readPidFile } from '../../../../emulator/pid-file.js';
import { ExitError } from '../../errors.js';

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
  if (!looksLikeEmulator(pid)) {
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
