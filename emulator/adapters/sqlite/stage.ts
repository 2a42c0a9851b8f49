import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resolveOptions, type EmulatorOptions } from '../../emulator.js';
import { openEmulatorWith } from '../../open.js';
import { CLOCK_FILE } from './clock-file.js';
import { SEED_FILE } from './seed-file.js';
import { SqliteStorage } from './index.js';
import { ENVIRONMENTS } from '../../../src/contract/store.js';
import { syncDir, writeFileAtomic } from '../../../src/files/atomic.js';
import { restoreState, type RestoredIntegration } from '../../bundle/restore.js';
import type { Bundle } from '../../bundle/format.js';

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
const DATABASES = ENVIRONMENTS.map((name) => `${name}.sqlite`);
const SWAPPED = [...DATABASES, CLOCK_FILE, SEED_FILE];

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
function finishSwap(dataDir: string): void {
  const swap = join(dataDir, SWAP);
  for (const name of SWAPPED) {
    const staged = join(swap, name);
    if (!existsSync(staged)) continue; // moved before the crash
    // The old database's log would be replayed into the new file: it goes first.
    if (DATABASES.includes(name)) for (const suffix of ['-wal', '-shm', '-journal']) rmSync(join(dataDir, name + suffix), { force: true });
    renameSync(staged, join(dataDir, name));
  }
  syncDir(dataDir);
  rmSync(swap, { recursive: true, force: true });
}

/**
 * Before a start on `dataDir`: finishes a restore that was committed, discards one that was not.
 * Returns what happened, in a line for stderr, or null when there was nothing to do.
 */
export function recoverInterruptedRestore(dataDir: string): string | null {
  if (existsSync(join(dataDir, SWAP))) {
    const from = bundleOf(join(dataDir, SWAP));
    finishSwap(dataDir);
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
export async function restoreIntoDataDir(dataDir: string, bundle: Bundle, from: string, options: EmulatorOptions): Promise<RestoredIntegration[]> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = join(dataDir, STAGING);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  writeFileAtomic(join(staging, ABOUT), JSON.stringify({ from }));
  let restored: RestoredIntegration[];
  try {
    let storage: SqliteStorage | undefined;
    const emulator = await openEmulatorWith(resolveOptions({ clock: options.clock, seed: options.seed, data: staging }), (context) => {
      storage = new SqliteStorage({ dataDir: staging }, context);
      return storage;
    });
    try {
      restored = await restoreState(emulator, bundle);
      // A database file without a -wal beside it: the whole restore is in the one file that is moved.
      for (const env of Object.values(storage!.envs)) env.db.pragma('journal_mode = DELETE');
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
  finishSwap(dataDir);
  return restored;
}
