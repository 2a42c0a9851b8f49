import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { redactSecrets } from '../../../logging/redact.js';
import { ExitError } from '../../errors.js';

// A start that fails leaves nothing behind and says what to do (issue 27: a start on a busy port had
// already made the data folder, so the demo credentials it made were never shown, and the next
// start only showed key ids).

/** What to do about a port another process holds: another port, or stop the emulator there (of a folder, or in memory). */
function busyPortHint(port: number): string {
  return `start on another port (--port ${port + 1}, or --port 0 for any free one), or stop the emulator that holds it (Ctrl+C in its terminal, or merchant-kit emulator stop [--data DIR])`;
}

/** The one line (and hint) of a start the port refused; null for any other failure. */
function portRefusal(error: unknown, host: string, port: number): ExitError | null {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ExitError(`error: port ${port} of ${host} is in use (another emulator, or another program, listens there)`, 1, { hint: busyPortHint(port) });
  }
  if (code === 'EACCES' && port < 1024) {
    return new ExitError(`error: port ${port} of ${host} needs privileges this user does not have`, 1, { hint: 'start on a port of 1024 or more (the default is 4010)' });
  }
  if (code === 'EADDRNOTAVAIL') {
    return new ExitError(`error: ${host} is not an address of this machine`, 1, { hint: 'listen on 127.0.0.1 (the default), or on an address of one of its network interfaces' });
  }
  return null;
}

/**
 * Refuses a port that is taken before the start writes anything (a data folder, a restore): the
 * usual day-one failure (the emulator of yesterday still runs) then changes nothing. Port 0 always
 * finds one. Another program may still take the port before the emulator binds it; the start's own
 * failure then says the same (startFailure).
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (error) {
    // Anything else (a host that does not resolve) is left to the start, which names it.
    const refusal = portRefusal(error, host, port);
    if (refusal) throw refusal;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Why a start failed, as the CLI prints it: `error: …`, with a hint for a taken port. */
export function startFailure(error: unknown, host: string, port: number): ExitError {
  return portRefusal(error, host, port) ?? new ExitError(`error: could not start the emulator: ${redactSecrets((error as Error).message)}`);
}

/**
 * The data folder as it was before a start, so that a failed start can put it back: a folder the
 * start made (and the parents it made, `.merchant-kit/` of the default) is removed; a folder that
 * was empty is emptied again. A folder that held something is left as the start left it: its
 * databases were the user's before, and may be another emulator's.
 */
export class DataDirBefore {
  private constructor(
    private readonly dataDir: string,
    /** The outermost folder the start will make, when the data folder does not exist yet. */
    private readonly made: string | null,
    /** The data folder existed and was empty. */
    private readonly wasEmpty: boolean,
  ) {}

  static of(dataDir: string): DataDirBefore {
    if (existsSync(dataDir)) return new DataDirBefore(dataDir, null, readdirSync(dataDir).length === 0);
    let made = dataDir;
    while (!existsSync(dirname(made)) && dirname(made) !== made) made = dirname(made);
    return new DataDirBefore(dataDir, made, false);
  }

  /**
   * Takes back what the failed start wrote; true when the folder was removed or emptied. Never
   * throws: the start's own error is what to report.
   */
  undo(): boolean {
    try {
      if (this.made) rmSync(this.made, { recursive: true, force: true });
      else if (this.wasEmpty) for (const entry of readdirSync(this.dataDir)) rmSync(join(this.dataDir, entry), { recursive: true, force: true });
      return this.made !== null || this.wasEmpty;
    } catch {
      return false;
    }
  }
}
