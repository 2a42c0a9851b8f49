import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readyLine, startEmulator, type ReadyInfo, type RunningEmulator } from '../../../../emulator/server.js';
import { SEED_FILE } from '../../../../emulator/data-folder.js';
import { ExitError } from '../../errors.js';
import type { StartOptions } from './index.js';
import { checkOperatorFlags, shownUrl, startStorage } from './storage.js';
import { loadBundleForStart, restoredNote } from './export.js';
import { banner, type BannerFacts } from './banner.js';
import type { loadStartCatalog } from './start-catalog.js';
import { DETACHED_CHILD, DETACHED_TEMP_LOG, type DetachedReady } from './detach.js';
import { assertPortFree, DataDirBefore, startFailure } from './start-failure.js';

/** `merchant-kit emulator start`: listens, prints the ready line, stops cleanly on SIGINT/SIGTERM. */
export async function startAction(options: StartOptions): Promise<void> {
  const { dataDir, databaseUrl } = startStorage(options);
  checkOperatorFlags(options);
  // Read before the start: a refused bundle or menu changes nothing.
  const bundle = options.from ? await loadBundleForStart(options.from) : null;
  // The menu's reader (csv-parse, the catalog file's checks) loads with --catalog only.
  const startCatalog = options.catalog ? await import('./start-catalog.js') : null;
  const menu = startCatalog ? await startCatalog.readStartCatalog(options.catalog!) : null;
  // A taken port changes nothing either; any later failure puts the data folder back (start-failure.ts).
  await assertPortFree(options.host, options.port);
  const before = dataDir ? DataDirBefore.of(dataDir) : null;
  // The demo credentials are made by this start unless the data folder already keeps them.
  // On a shared database every process's ready line carries them; the banner shows key ids.
  const credentialsNew = databaseUrl === null && (dataDir === null || bundle !== null || !existsSync(join(dataDir, SEED_FILE)));
  let running: RunningEmulator;
  try {
    running = await startEmulator({
      from: bundle && options.from ? { bundle, file: options.from } : undefined,
      port: options.port,
      host: options.host,
      data: dataDir ?? undefined,
      memory: dataDir === null && databaseUrl === null,
      databaseUrl: databaseUrl ?? undefined,
      clock: options.clock,
      limits: options.limits === 'on',
      seed: options.seed,
      adminToken: options.adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN,
      allowedHosts: options.allowedHost,
      trustProxy: options.trustProxy,
      allowLoopbackTargets: options.allowLoopbackTargets ?? false,
      accessRequests: options.accessRequests === 'open',
      publicUrl: options.publicUrl,
      logger: options.verbose ?? false,
    });
  } catch (error) {
    before?.undo();
    // A bundle that the schema refuses (found while it is loaded) is named like one refused on reading.
    if ((error as Error).name === 'BundleError') throw new ExitError(`error: cannot start from ${options.from}: ${(error as Error).message}`);
    throw startFailure(error, options.host, options.port);
  }
  for (const notice of running.notices) process.stderr.write(`${notice}\n`);
  // Before the ready line: a supervisor may send a signal as soon as it reads it.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: stopping the emulator…\n`);
    await running.close();
    // A `--memory --detach` emulator's own temporary log is not kept once it stopped cleanly.
    const tempLog = process.env[DETACHED_TEMP_LOG];
    if (tempLog) rmSync(tempLog, { force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const ready = readyLine(running);
  let catalog: Awaited<ReturnType<typeof loadStartCatalog>> | null = null;
  try {
    catalog = menu ? await startCatalog!.loadStartCatalog(running, ready.stores, menu) : null;
  } catch (error) {
    // Nothing was announced yet: the emulator stops (its pid file goes with it) and the folder is put back.
    await running.close();
    before?.undo();
    throw error;
  }
  const facts: BannerFacts = {
    ready,
    storage: databaseUrl ? `PostgreSQL ${shownUrl(databaseUrl)} (shared: every process on it is this sandbox)` : (dataDir ?? 'in memory (lost on exit)'),
    clock: { mode: running.emulator.clock.mode, offsetSeconds: Math.round(running.emulator.clock.offsetMs() / 1000) },
    credentialsNew,
    catalog,
    detached: null,
  };
  const extra = bundle ? restoredNote(options.from!, ready) : '';
  if (process.env[DETACHED_CHILD] && process.send) return reportToParent({ ready, facts, extra });
  if (options.json) process.stdout.write(`${JSON.stringify(ready)}\n`);
  else process.stdout.write(`${banner(facts)}\n${extra}`);
}

/**
 * Under `start --detach`: the ready line and the banner's facts go to the parent, which prints them
 * and returns. A parent that is gone (interrupted) has nobody to tell: the emulator runs on.
 */
function reportToParent(message: DetachedReady & { ready: ReadyInfo }): void {
  if (!process.connected) return;
  process.send!(message, () => {
    if (process.connected) process.disconnect();
  });
}
