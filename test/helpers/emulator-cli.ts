import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import type { ReadyInfo } from '../../emulator/server.js';
import { runCli, type CliProcess } from './cli.js';
import { stopAll } from './feed.js';

/** The ready line of `emulator start --json` (DESIGN, Emulator contract). */
export type ReadyLine = ReadyInfo;

/**
 * Emulators started through the built CLI for one test file: each is killed after its test, and the
 * scratch folders go after the file. Call once, at the top level of the file. A file whose tests run
 * at once (`describe.concurrent`: each test its own port and folder) passes `{ concurrent: true }`:
 * its processes are killed after the file instead (after a test, another test's would go too).
 */
export function emulatorCli(prefix = 'mk-emulator-', { concurrent = false }: { concurrent?: boolean } = {}) {
  const running: CliProcess[] = [];
  const dirs: string[] = [];
  if (!concurrent) afterEach(() => stopAll(running));
  afterAll(async () => {
    await stopAll(running);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** Kills this process after the test too. */
    track(cli: CliProcess): CliProcess {
      running.push(cli);
      return cli;
    },
    tempDir(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    /** `emulator start --json --port 0 …args`, resolved with its ready line. */
    async start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ cli: CliProcess; ready: ReadyLine }> {
      const cli = runCli(['emulator', 'start', '--json', '--port', '0', ...args], env);
      running.push(cli);
      return { cli, ready: JSON.parse(await cli.firstLine) as ReadyLine };
    },
  };
}
