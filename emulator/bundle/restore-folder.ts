import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { syncDir, writeFileAtomic } from '../../src/files/atomic.js';
import type { Emulator } from '../emulator.js';
import type { RestoredIntegration } from './restore.js';
import type { Bundle } from './format.js';

/**
 * `start --from FILE --data DIR` is all or nothing, whatever moment a crash or a SIGKILL picks:
 *
 * 1. the restored folder is built whole in `DIR/.restore-staging` (databases, clock, demo stores),
 *    every file synced; the live data is not touched;
 * 2. the staging folder is renamed `DIR/.restore-swap`: the commit point (one atomic rename);
 * 3. its files are renamed over the live ones, then the folder is removed.
 *
 * The next start finishes a swap that was committed (2–3) and discards a staging folder that was
 * not (1): the folder then holds the bundle's state or its previous one, never a mix.
 */
const STAGING = '.restore-staging';
const SWAP = '.restore-swap';
/** Inside the staging folder: which bundle it holds, for the next start's note. */
const ABOUT = 'restore.json';

/** The files of a data folder, as the storage that keeps it names them (the embedded adapter's). */
export interface FolderFiles {
  /** What a restore replaces, by name: the databases, the clock, the demo stores. */
  readonly files: readonly string[];
  /** Removes what beside the live file `name` of `dir` must not meet the new one (a database's log would be replayed into it). */
  clearBeside(dir: string, name: string): void;
}

/** What a restore into a data folder needs of the storage that keeps it. */
export interface FolderStorage extends FolderFiles {
  /**
   * An emulator over the folder `dir` (its options' clock and seed), and `seal`: each of the
   * storage's files whole on its own (nothing beside it to replay), before the emulator closes.
   */
  open(dir: string): Promise<{ emulator: Emulator; seal(): void }>;
}

function bundleOf(dir: string): string {
  try {
    return (JSON.parse(readFileSync(join(dir, ABOUT), 'utf8')) as { from?: unknown }).from as string;
  } catch {
    return 'a bundle'; // killed before it wrote which
  }
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Step 3: moves every staged file still in the swap folder over the live one, then removes the folder. */
function finishSwap(dataDir: string, folder: FolderFiles): void {
  const swap = join(dataDir, SWAP);
  for (const name of folder.files) {
    const staged = join(swap, name);
    if (!existsSync(staged)) continue; // moved before the crash
    folder.clearBeside(dataDir, name);
    renameSync(staged, join(dataDir, name));
  }
  syncDir(dataDir);
  rmSync(swap, { recursive: true, force: true });
}

/**
 * Before a start on `dataDir`: finishes a restore that was committed, discards one that was not.
 * Returns what happened, in a line for stderr, or null when there was nothing to do.
 */
export function recoverInterruptedRestore(dataDir: string, folder: FolderFiles): string | null {
  if (existsSync(join(dataDir, SWAP))) {
    const from = bundleOf(join(dataDir, SWAP));
    finishSwap(dataDir, folder);
    rmSync(join(dataDir, STAGING), { recursive: true, force: true });
    return `note: finished the restore from ${from} in ${dataDir}, interrupted once it was complete; the ready line shows the demo stores' credentials, start again with --from for the other restored integrations'`;
  }
  if (existsSync(join(dataDir, STAGING))) {
    const from = bundleOf(join(dataDir, STAGING));
    rmSync(join(dataDir, STAGING), { recursive: true, force: true });
    return `note: discarded the restore from ${from}, interrupted before it was complete; ${dataDir} keeps its previous state`;
  }
  return null;
}

/**
 * Restores `bundle` into the data folder `dataDir` (steps 1–3 above) before an emulator opens it.
 * Returns the restored integrations with the credentials handed out (shown once).
 */
export async function restoreIntoDataDir(dataDir: string, bundle: Bundle, from: string, folder: FolderStorage): Promise<RestoredIntegration[]> {
  // Loaded here: a start without --from, and `emulator stop`, never need the aggregates' restore.
  const { restoreState } = await import('./restore.js');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = join(dataDir, STAGING);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  writeFileAtomic(join(staging, ABOUT), JSON.stringify({ from }));
  let restored: RestoredIntegration[];
  try {
    const { emulator, seal } = await folder.open(staging);
    try {
      restored = await restoreState(emulator, bundle);
      seal();
    } finally {
      await emulator.close();
    }
    for (const name of readdirSync(staging)) fsyncFile(join(staging, name));
    syncDir(staging);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  renameSync(staging, join(dataDir, SWAP));
  syncDir(dataDir);
  finishSwap(dataDir, folder);
  return restored;
}
