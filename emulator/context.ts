import type { Clock } from './clock.js';
import type { Db } from './store/sqlite/open.js';
import { IdFactory } from '../src/contract/ids.js';
import type { RandomSource } from '../src/contract/random.js';
import type { Environment } from '../src/contract/store.js';
import { createStoreStatements } from './data/stores.js';
import { createIntegrationStatements } from './data/integrations.js';
import { createCredentialStatements } from './data/credentials.js';
import { createIdempotencyStatements } from './data/idempotency.js';
import { createEventStatements, type EventRecord } from './data/events.js';
import { createCatalogStatements } from './data/catalog.js';
import { createOrderStatements } from './data/orders.js';
import { createWebhookStatements } from './data/webhooks.js';
import { createEntregaStatements } from './data/entregas.js';
import { createSnapshotStatements } from './data/snapshots.js';
import type { OutboundGuard } from './net/outbound.js';

/** One environment (live or test): its own database and the statements over it. */
export interface EnvContext {
  name: Environment;
  /** `/v1` for live, `/sandbox/v1` for test. */
  basePath: string;
  db: Db;
  clock: Clock;
  ids: IdFactory;
  random: RandomSource;
  stores: ReturnType<typeof createStoreStatements>;
  integrations: ReturnType<typeof createIntegrationStatements>;
  credentials: ReturnType<typeof createCredentialStatements>;
  idempotency: ReturnType<typeof createIdempotencyStatements>;
  events: ReturnType<typeof createEventStatements>;
  catalog: ReturnType<typeof createCatalogStatements>;
  orders: ReturnType<typeof createOrderStatements>;
  webhooks: ReturnType<typeof createWebhookStatements>;
  entregas: ReturnType<typeof createEntregaStatements>;
  snapshots: ReturnType<typeof createSnapshotStatements>;
  /** Checks every outbound connection (webhooks, images); shared by the emulator's environments. */
  outbound: OutboundGuard;
  /** Runs `fn` in one SQLite transaction (nested calls join the outer one). */
  tx<T>(fn: () => T): T;
  /**
   * Writes an event for every integration of the store (or only `integrationId`), in the caller's
   * transaction. Scopes are applied when an event is read, since they can change afterwards.
   */
  emit(type: string, storeId: string, data: Record<string, unknown>, integrationId?: string): EventRecord[];
}

export const BASE_PATHS: Record<Environment, string> = { live: '/v1', test: '/sandbox/v1' };

export function createEnvContext(name: Environment, db: Db, clock: Clock, random: RandomSource, outbound: OutboundGuard): EnvContext {
  const ids = new IdFactory(() => clock.now(), random);
  const ctx: EnvContext = {
    name,
    basePath: BASE_PATHS[name],
    db,
    clock,
    ids,
    random,
    stores: createStoreStatements(db),
    integrations: createIntegrationStatements(db),
    credentials: createCredentialStatements(db),
    idempotency: createIdempotencyStatements(db),
    events: createEventStatements(db),
    catalog: createCatalogStatements(db),
    orders: createOrderStatements(db),
    webhooks: createWebhookStatements(db),
    entregas: createEntregaStatements(db),
    snapshots: createSnapshotStatements(db),
    outbound,
    tx: (fn) => db.transaction(fn)(),
    emit(type, storeId, data, integrationId) {
      const targets = integrationId ? [integrationId] : ctx.integrations.byStore(storeId).map((i) => i.id);
      const now = clock.now();
      return targets.map((target) =>
        ctx.events.insert({ id: ids.next('event'), type, storeId, integrationId: target, createdAt: now, data }),
      );
    },
  };
  return ctx;
}
