import type { Clock } from './clock.js';
import { IdFactory } from '../src/contract/ids.js';
import type { RandomSource } from '../src/contract/random.js';
import type { Environment } from '../src/contract/store.js';
import type { OutboundGuard } from './net/outbound.js';
import type { EnvStore } from './store/port.js';
import type { ChangeFeed } from './store/changes.js';
import { BASE_PATHS } from '../src/contract/base-paths.js';

/**
 * One environment (live or test) as the aggregates see it: its storage (repositories that read
 * committed data, and `tx` for a unit of work), the one clock, its ids and the outbound guard.
 */
export interface EnvContext {
  name: Environment;
  /** `/v1` for live, `/sandbox/v1` for test. */
  basePath: string;
  store: EnvStore;
  clock: Clock;
  ids: IdFactory;
  random: RandomSource;
  /** What changed (caches listen here). */
  changes: ChangeFeed;
  /** Checks every outbound connection (webhooks, images); shared by the emulator's environments. */
  outbound: OutboundGuard;
}

/** `random` for the simulator's choices; `idBytes` for ids (the same stream, salted where ids must differ from other starts'). */
export function createEnvContext(
  name: Environment, store: EnvStore, clock: Clock, random: RandomSource, idBytes: RandomSource, changes: ChangeFeed, outbound: OutboundGuard,
): EnvContext {
  return { name, basePath: BASE_PATHS[name], store, clock, ids: new IdFactory(() => clock.now(), idBytes), random, changes, outbound };
}
