import type { Statement } from 'better-sqlite3';
import type { Environment } from '../../../src/contract/store.js';
import type { EventType } from '../../../src/contract/events.js';
import type { EventData, EventRecord } from '../../orders/repository.js';
import type { EnvStore, Repositories, Tx } from '../../store/port.js';
import { emitEvents, type EmitContext } from '../../store/emit.js';
import type { LocalChangeFeed } from '../../store/changes.js';
import { ClaimAnswered, type WorkClaim } from '../../store/coordination.js';
import { Mutex } from './mutex.js';
import type { Db } from './open.js';
import { sqliteCredentials, sqliteIntegrations, sqliteStores } from './stores.js';
import { sqliteCatalog } from './catalog.js';
import { sqliteSnapshots } from './snapshots.js';
import { sqliteOrders } from './orders.js';
import { sqliteEvents } from './events.js';
import { sqliteWebhooks } from './webhooks.js';
import { sqliteEntregas } from './entregas.js';
import { sqliteAccessRequests } from './access-requests.js';
import { runAfterCommit } from '../../store/after-commit.js';
import { prepareLazily } from './lazy-statement.js';

export interface SqliteEnvOptions {
  environment: Environment;
  db: Db;
  changes: LocalChangeFeed;
  /** The clock, ids and outbox `emit` takes. */
  context: EmitContext;
}

/**
 * One environment on its SQLite connection. A transaction takes the environment's mutex, so one
 * runs at a time however many awaits it spans; repositories used outside a transaction wait for the
 * running one to end, so they only ever read committed data. Repository calls are synchronous
 * underneath (better-sqlite3): the promises they return are already settled.
 */
export class SqliteEnvStore implements EnvStore {
  readonly environment: Environment;
  readonly db: Db;
  readonly mutex = new Mutex();
  /** The repositories as a transaction uses them (no waiting: the transaction holds the mutex). */
  private readonly inner: Repositories;
  readonly stores: Repositories['stores'];
  readonly integrations: Repositories['integrations'];
  readonly credentials: Repositories['credentials'];
  readonly catalog: Repositories['catalog'];
  readonly snapshots: Repositories['snapshots'];
  readonly orders: Repositories['orders'];
  readonly events: Repositories['events'];
  readonly webhooks: Repositories['webhooks'];
  readonly entregas: Repositories['entregas'];
  readonly accessRequests: Repositories['accessRequests'];
  private readonly begin: Statement<[]>;
  private readonly commit: Statement<[]>;
  private readonly rollback: Statement<[]>;

  constructor(private readonly options: SqliteEnvOptions) {
    const { db, environment, changes } = options;
    this.environment = environment;
    this.db = db;
    const ordersChanged = (storeId: string | null, orderId: string) => changes.publish({ topic: 'orders', environment, storeId, orderId });
    this.inner = {
      stores: sqliteStores(db),
      integrations: sqliteIntegrations(db),
      credentials: sqliteCredentials(db),
      catalog: sqliteCatalog(db),
      snapshots: sqliteSnapshots(db),
      orders: sqliteOrders(db, ordersChanged),
      events: sqliteEvents(db),
      webhooks: sqliteWebhooks(db),
      entregas: sqliteEntregas(db),
      accessRequests: sqliteAccessRequests(db),
    };
    this.stores = waitForCommit(this.inner.stores, this.mutex);
    this.integrations = waitForCommit(this.inner.integrations, this.mutex);
    this.credentials = waitForCommit(this.inner.credentials, this.mutex);
    this.catalog = waitForCommit(this.inner.catalog, this.mutex);
    this.snapshots = waitForCommit(this.inner.snapshots, this.mutex);
    this.orders = waitForCommit(this.inner.orders, this.mutex);
    this.events = waitForCommit(this.inner.events, this.mutex);
    this.webhooks = waitForCommit(this.inner.webhooks, this.mutex);
    this.entregas = waitForCommit(this.inner.entregas, this.mutex);
    this.accessRequests = waitForCommit(this.inner.accessRequests, this.mutex);
    this.begin = prepareLazily<[]>(db, 'BEGIN');
    this.commit = prepareLazily<[]>(db, 'COMMIT');
    this.rollback = prepareLazily<[]>(db, 'ROLLBACK');
  }

  async tx<T>(work: (tx: Tx) => Promise<T>, claim?: WorkClaim): Promise<T> {
    // A key's claim rides with a server database's transaction only; here it is taken first, as the
    // route would (no adapter of this one offers `withWork`: this keeps the port's promise anyway).
    if (claim) {
      const taken = await claim.result();
      if (taken.kind !== 'fresh') throw new ClaimAnswered(taken);
    }
    if (!this.mutex.tryLock()) await this.mutex.lock();
    const tx = new SqliteTx(this.environment, this.inner, this.options);
    let out: T;
    try {
      this.begin.run();
      out = await work(tx);
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      this.mutex.unlock();
      throw error;
    }
    this.mutex.unlock();
    tx.committed();
    return out;
  }
}

class SqliteTx implements Tx {
  readonly stores: Repositories['stores'];
  readonly integrations: Repositories['integrations'];
  readonly credentials: Repositories['credentials'];
  readonly catalog: Repositories['catalog'];
  readonly snapshots: Repositories['snapshots'];
  readonly orders: Repositories['orders'];
  readonly events: Repositories['events'];
  readonly webhooks: Repositories['webhooks'];
  readonly entregas: Repositories['entregas'];
  readonly accessRequests: Repositories['accessRequests'];
  private hooks: (() => void)[] | null = null;

  constructor(
    readonly environment: Environment,
    repositories: Repositories,
    private readonly options: SqliteEnvOptions,
  ) {
    this.stores = repositories.stores;
    this.integrations = repositories.integrations;
    this.credentials = repositories.credentials;
    this.catalog = repositories.catalog;
    this.snapshots = repositories.snapshots;
    this.orders = repositories.orders;
    this.events = repositories.events;
    this.webhooks = repositories.webhooks;
    this.entregas = repositories.entregas;
    this.accessRequests = repositories.accessRequests;
  }

  afterCommit(fn: () => void): void {
    (this.hooks ??= []).push(fn);
  }

  emit<T extends EventType>(type: T, storeId: string, data: EventData<T>, integrationId?: string): Promise<EventRecord[]> {
    const { changes } = this.options;
    return emitEvents(this, this.options.context, (change) => this.afterCommit(() => changes.publish(change)), { type, storeId, data, integrationId });
  }

  /** Runs the after-commit hooks; one that throws does not keep the others from running. */
  committed(): void {
    runAfterCommit(this.hooks);
  }
}

/**
 * The repository as used outside a transaction: each call waits while a transaction runs (it holds
 * the mutex), then runs at once. The usual case, no transaction under way, adds no promise.
 */
function waitForCommit<R extends object>(repository: R, mutex: Mutex): R {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(repository)) {
    if (typeof fn !== 'function') continue;
    const call = fn as (...args: unknown[]) => Promise<unknown>;
    out[name] = (...args: unknown[]) => (mutex.locked ? mutex.whenFree(() => call(...args)) : call(...args));
  }
  return out as R;
}
