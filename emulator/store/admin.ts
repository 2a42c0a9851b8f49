import type { Environment } from '../../src/contract/store.js';
import type { EnvironmentDump } from '../bundle/format.js';

/**
 * The storage's own upkeep: what bundles, resets and start-up need. A bundle holds each
 * environment's tables by their logical names and columns, so both adapters read and write the
 * same format.
 */
export interface Admin {
  /** The schema version the adapter's migrations bring a database to. */
  readonly schemaVersion: number;
  /** One environment's tables and feed positions, read in one transaction so the tables agree. */
  dump(env: Environment): Promise<EnvironmentDump>;
  /**
   * Replaces every environment's state with the dumps', all or nothing: checked first (tables,
   * columns, cells, schema version, references), then written in one unit; a refused dump changes
   * nothing and throws a BundleError.
   */
  restore(dumps: Record<Environment, EnvironmentDump>): Promise<void>;
  /** Empties every table of every environment (the emulator's reset; the caller seeds again). */
  reset(): Promise<void>;
}
