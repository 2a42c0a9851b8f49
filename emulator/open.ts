// The composition root: the one module that picks a storage adapter and opens the emulator over it,
// with the sandbox's clock and demo stores. Nothing else outside emulator/adapters/ imports an adapter
// (test/architecture/layers.test.ts), but the data folder's entry (data-folder.ts).
import { Emulator, type ResolvedOptions } from './emulator.js';
import type { StoragePort } from './store/port.js';
import type { EmitContext } from './store/emit.js';
import type { ClockState } from './store/coordination.js';
import { SqliteStorage } from './adapters/sqlite/index.js';
import { loadOrCreateSeeds } from './stores/seed.js';
import { newSigningKey } from './certificates/keys.js';

/** Opens the storage (SQLite, or PostgreSQL with `databaseUrl`), the clock where it was left, and the demo stores. */
export async function openEmulator(options: ResolvedOptions): Promise<Emulator> {
  if (options.databaseUrl !== null && (options.data !== null)) throw new Error('a database URL and a data folder are two storages: give one');
  const url = options.databaseUrl;
  if (url !== null) {
    const { PostgresStorage } = await import('./adapters/postgres/index.js');
    return openEmulatorWith(options, (context) => PostgresStorage.open(url, context, { schemaPrefix: options.databaseSchema ?? undefined }));
  }
  return openEmulatorWith(options, (context) => new SqliteStorage({ dataDir: options.data }, context));
}

/** The same on a storage of the caller's making (a restore's staging folder, another adapter). */
export async function openEmulatorWith(
  options: ResolvedOptions,
  openStorage: (context: EmitContext) => StoragePort | Promise<StoragePort>,
): Promise<Emulator> {
  let emulator: Emulator | undefined;
  const context: EmitContext = {
    clock: () => emulator!.clock,
    ids: (env) => emulator!.envs[env].ids,
    outbox: () => emulator?.outbox ?? null,
  };
  const storage = await openStorage(context);
  try {
    const saved = await sandboxClock(storage, options);
    emulator = new Emulator(options, storage, saved);
    emulator.seeds = await storage.coordination.seeds.once(() => loadOrCreateSeeds(emulator!));
    // DESIGN: the certificates' signing key is made at the sandbox's first start (once for every process).
    await storage.certificates.currentKey(() => newSigningKey());
    emulator.followSandbox();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return emulator;
}

/**
 * Where the sandbox's clock stands: the saved state, or a new one (this process's `--clock`, no
 * advance, a manual clock standing at the real time now) saved for the processes that follow. A
 * process whose `--clock` is not the sandbox's is refused: every process of a sandbox keeps one time
 * line. A storage no other process shares keeps only the offset: this process's `--clock` decides.
 */
async function sandboxClock(storage: StoragePort, options: ResolvedOptions): Promise<ClockState> {
  const saved = await storage.coordination.clock.load();
  const fresh: ClockState = { mode: options.clock, offsetMs: 0, frozenAt: options.manualClockStart ?? Date.now() };
  if (!storage.shared) return saved ? { ...fresh, offsetMs: saved.offsetMs } : fresh;
  if (!saved) {
    await storage.coordination.clock.save(fresh);
    return fresh;
  }
  if (saved.mode !== options.clock) {
    throw new Error(`this sandbox runs a ${saved.mode} clock: start every process of it with --clock ${saved.mode}`);
  }
  return saved;
}
