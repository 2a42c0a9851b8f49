import type { Coordination } from '../../store/coordination.js';
import type { Change } from '../../store/changes.js';
import type { Conn } from './conn.js';
import { translate } from './errors.js';
import type { Pool } from './connect.js';
import type { PgChangeFeed } from './changes.js';
import { pgIdempotency } from './idempotency.js';
import { pgWindows } from './windows.js';
import { pgBatchGate } from './gate.js';
import { pgFaults } from './faults.js';
import { PgHomologation } from './homologation.js';
import { pgSeeds } from './seeds.js';
import { SharedRow } from './sandbox.js';
import type { LeaseKeeper } from './leases.js';
import { quote, type SchemaNames } from './schema.js';

export interface PgCoordinationParts {
  conn: Conn;
  pool: Pool;
  names: SchemaNames;
  feed: PgChangeFeed;
  leases: LeaseKeeper;
}

/** Everything several processes share besides the repositories, in the shared schema's tables. */
export function pgCoordination({ conn, pool, names, feed, leases }: PgCoordinationParts): Coordination & {
  readonly homologation: PgHomologation;
  readonly shared: SharedRow;
} {
  const shared = new SharedRow(conn, names);
  // Faults, chaos and armed faults: the others' last reads of the shared row are out of date.
  const sharedChanged = () => void feed.notify(pool, [], true);
  const clockChanged = () => {
    const change: Change = { topic: 'clock', environment: null };
    feed.publish([change]);
    void feed.notify(pool, [change]);
  };
  feed.onSharedChange = () => shared.forget();
  const homologation = new PgHomologation(conn, names, shared, sharedChanged);
  // One simple query runs as one transaction: the tables and the generation move together.
  const schema = quote(names.shared);
  const reset = `TRUNCATE ${['rate_windows', 'faults', 'armed_faults', 'homologation_calls', 'homologation_sessions'].map((x) => `${schema}.${x}`).join(', ')};
    UPDATE ${schema}.sandbox_state SET chaos = NULL, generation = generation + 1;`;
  return {
    windows: pgWindows(conn, names),
    idempotency: pgIdempotency(conn, names, leases),
    batches: pgBatchGate(conn, names, leases),
    clock: shared.clockStore(clockChanged),
    faults: pgFaults(conn, names, shared, sharedChanged),
    chaos: shared.chaosStore(sharedChanged),
    homologation,
    seeds: pgSeeds(conn, pool, names),
    shared,
    sharedState: () => shared.read(),
    async reset() {
      homologation.clear();
      await pool.query(`${reset}${feed.notifyText([], true)}`).catch((error) => {
        throw translate(error);
      });
      shared.faults = false;
      shared.armed = false;
      shared.chaos = null;
    },
  };
}
