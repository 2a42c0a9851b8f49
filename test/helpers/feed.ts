import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliProcess } from './cli.js';
import type { TestEmulator } from './emulator.js';
import { readAllEvents } from './orders.js';
import { PATIENCE_MS, waitFor } from './wait.js';

/** A scratch folder for cursor files and the config folder; removed by `cleanup()`. */
export function scratchDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mk-feed-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The environment a CLI subprocess needs to reach the emulator's sandbox with the seeded test credential, and nothing of the user's own config. */
export function apiEnv(emu: TestEmulator, configDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url,
    MERCHANT_KIT_CREDENTIAL: emu.test.credential,
    MERCHANT_KIT_PROFILE: '',
    MERCHANT_KIT_WEBHOOK_SECRET: '',
    XDG_CONFIG_HOME: configDir,
    ...extra,
  };
}

/**
 * Polls `check` every 20 ms until it returns true; fails with `describe()` once `timeoutMs` (on a
 * quiet machine, grown with the load: helpers/wait.ts) has passed. The limit only bounds a hang.
 */
export async function waitUntil(check: () => boolean, describe: () => string, timeoutMs = PATIENCE_MS): Promise<void> {
  await waitFor(() => check(), describe, { limitMs: timeoutMs });
}

/** The stdout lines of a CLI run parsed as JSON, skipping the first `skip` lines (a ready line). */
export function jsonLines(cli: CliProcess, skip = 0): any[] {
  // The ready line a following run prints first (`{"event":"ready",…,"pid"}`) is not one of its events.
  return cli.lines.slice(skip).map((l) => JSON.parse(l)).filter((line) => line?.event !== 'ready');
}

/** Waits until the run printed `count` lines (after `skip`, its ready line aside) and returns them parsed. */
export async function waitForJsonLines(cli: CliProcess, count: number, skip = 0, timeoutMs = PATIENCE_MS): Promise<any[]> {
  await waitUntil(() => jsonLines(cli, skip).length >= count, () => `${count} lines wanted, got:\n${cli.lines.join('\n')}\nstderr: ${cli.stderr()}`, timeoutMs);
  return jsonLines(cli, skip);
}

/** Every event id of the sandbox integration's feed, oldest first. */
export async function feedIds(emu: TestEmulator, query = ''): Promise<string[]> {
  return (await readAllEvents(emu, query)).map((e) => e.id);
}

/** Ends what a test left running: CLI processes still alive (SIGKILL, awaited), then receivers. */
export async function stopAll(running: CliProcess[], receivers: { close(): Promise<unknown> }[] = []): Promise<void> {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  }
  for (const rx of receivers.splice(0)) await rx.close();
}
