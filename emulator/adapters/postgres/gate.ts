import type { BatchGate } from '../../store/coordination.js';
import { statement, tableIn, type Conn } from './conn.js';
import type { LeaseKeeper } from './leases.js';
import type { SchemaNames } from './schema.js';

/**
 * spec: Limits — one batch at a time per integration, for the whole sandbox. The gate is a row with
 * its owner and lease (renewed while the batch runs): a process that died mid-batch holds it no
 * longer than one lease.
 */
export function pgBatchGate(conn: Conn, names: SchemaNames, leases: LeaseKeeper): BatchGate {
  const t = tableIn(names.shared);
  const acquire = statement(
    `INSERT INTO ${t('batch_gate')} AS g (environment, integration_id, owner, lease_until) VALUES ($1, $2, $3, $4)
     ON CONFLICT (environment, integration_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
     WHERE g.lease_until < $5
     RETURNING 1`,
  );
  const release = statement(`DELETE FROM ${t('batch_gate')} WHERE environment = $1 AND integration_id = $2 AND owner = $3`);
  return {
    async acquire(env, integrationId) {
      const taken = (await conn.rows(acquire, [env, integrationId, leases.owner, leases.until(), Date.now()])).length > 0;
      if (taken) leases.taken();
      return taken;
    },
    release(env, integrationId) {
      return leases.settle(`batch ${env} ${integrationId}`, () => conn.run(release, [env, integrationId, leases.owner]));
    },
  };
}
