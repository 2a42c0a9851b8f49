import { join } from 'node:path';
import { ENVIRONMENTS, type Environment } from '../../../src/contract/store.js';
import type { StoragePort } from '../../store/port.js';
import { LocalChangeFeed } from '../../store/changes.js';
import type { Coordination } from '../../store/coordination.js';
import type { EmitContext } from '../../store/emit.js';
import { LocalWindows } from './local/windows.js';
import { LocalBatchGate, LocalChaos, LocalFaults } from './local/state.js';
import { LocalHomologation } from './local/homologation.js';
import { openDatabase, type Db } from './open.js';
import { rowWatch } from './row-watch.js';
import { SqliteEnvStore } from './env-store.js';
import { sqliteIdempotency } from './idempotency.js';
import { SqliteAdmin } from './admin.js';
import { fileClockStore } from './clock-file.js';
import { fileSeedStore } from './seed-file.js';
import { openSandboxDatabase } from './sandbox-db.js';
import { sqliteCertificates } from './certificates.js';
import type { CertificateLedger } from '../../certificates/repository.js';

export interface SqliteOptions {
  /** The data folder (`--data`), or null for memory (`--memory`). */
  dataDir: string | null;
}

/** The embedded adapter: each environment in its own SQLite file (or in memory), one process. */
export class SqliteStorage implements StoragePort {
  readonly shared = false;
  readonly changes = new LocalChangeFeed(true);
  readonly coordination: Coordination & { readonly faults: LocalFaults; readonly homologation: LocalHomologation };
  readonly admin: SqliteAdmin;
  readonly envs: Record<Environment, SqliteEnvStore>;
  readonly certificates: CertificateLedger;
  /** The sandbox's own database (sandbox-db.ts): the certificates' ledger. */
  readonly sandboxDb: Db;
  private readonly windows = new LocalWindows();
  private readonly chaos = new LocalChaos();

  constructor(options: SqliteOptions, context: EmitContext) {
    const dbs: Partial<Record<Environment, Db>> = {};
    try {
      for (const name of ENVIRONMENTS) dbs[name] = openDatabase(options.dataDir ? join(options.dataDir, `${name}.sqlite`) : null);
      this.sandboxDb = openSandboxDatabase(options.dataDir);
    } catch (error) {
      // A damaged database refuses the start: what was opened is closed (tests start many).
      for (const db of Object.values(dbs)) db.close();
      throw error;
    }
    this.certificates = sqliteCertificates(this.sandboxDb);
    this.envs = Object.fromEntries(
      ENVIRONMENTS.map((name) => {
        const db = dbs[name]!;
        this.publishRowChanges(name, db);
        const store = new SqliteEnvStore({
          environment: name, db, changes: this.changes, context,
        });
        return [name, store];
      }),
    ) as Record<Environment, SqliteEnvStore>;
    const idempotency = sqliteIdempotency(
      { live: this.envs.live.db, test: this.envs.test.db }, { live: this.envs.live.mutex, test: this.envs.test.mutex },
    );
    // A request cut off by a crash never finished: its key may be used again (spec: Idempotency 4).
    idempotency.releaseInterrupted();
    const faults = new LocalFaults();
    const homologation = new LocalHomologation();
    const windows = this.windows;
    const chaos = this.chaos;
    this.coordination = {
      windows,
      idempotency,
      batches: new LocalBatchGate(),
      clock: fileClockStore(options.dataDir),
      faults,
      chaos,
      homologation,
      seeds: fileSeedStore(options.dataDir),
      // One process is the whole sandbox: nothing shared to read.
      sharedState: () => null,
      async reset() {
        windows.clear();
        await faults.clear();
        await chaos.set(null);
        homologation.clear();
      },
    };
    this.admin = new SqliteAdmin(this.envs, this.changes);
  }

  env(name: Environment): SqliteEnvStore {
    return this.envs[name];
  }

  async close(): Promise<void> {
    for (const env of Object.values(this.envs)) env.db.close();
    this.sandboxDb.close();
  }

  /**
   * SQLite tells which rows a write touched (row-watch.ts): authentication's rows and webhooks go to
   * the change feed as they are written, from whatever path writes them (a route, a restore, a reset).
   */
  private publishRowChanges(environment: Environment, db: Db): void {
    const watch = rowWatch(db);
    watch.onAuthChange(() => this.changes.publish({ topic: 'auth', environment }));
    watch.onProductChange(() => this.changes.publish({ topic: 'catalog', environment, storeId: null }));
    watch.onWebhookChange(
      (storeId, config) => this.changes.publish({ topic: 'webhooks', environment, storeId, config }),
      () => this.changes.listening('webhooks'),
    );
  }
}
