import type { Environment } from '../../../src/contract/store.js';
import type { Admin } from '../../store/admin.js';
import type { EnvironmentDump } from '../../bundle/format.js';
import { MIGRATIONS } from './migrations/index.js';
import { dumpDatabase } from './dump.js';
import { loadDumps } from './restore.js';
import { resetDatabase } from './reset.js';
import type { SqliteEnvStore } from './env-store.js';
import type { LocalChangeFeed } from '../../store/changes.js';

/**
 * Bundles and resets on the embedded databases, each under its environment's mutex (no request sees
 * half). A reset or a restore writes every table at once, past the repositories that report their
 * own writes: it reports `reset` on the change feed before any request reads the new state.
 */
export class SqliteAdmin implements Admin {
  readonly schemaVersion = MIGRATIONS.length;

  constructor(
    private readonly envs: Record<Environment, SqliteEnvStore>,
    private readonly changes: LocalChangeFeed,
  ) {}

  async dump(env: Environment): Promise<EnvironmentDump> {
    const store = this.envs[env];
    return this.exclusive([store], () => dumpDatabase(store.db));
  }

  async restore(dumps: Record<Environment, EnvironmentDump>): Promise<void> {
    const stores = Object.values(this.envs);
    await this.exclusive(stores, () => {
      loadDumps({ live: this.envs.live.db, test: this.envs.test.db }, dumps);
      this.replaced();
    });
  }

  async reset(): Promise<void> {
    const stores = Object.values(this.envs);
    await this.exclusive(stores, () => {
      for (const store of stores) resetDatabase(store.db);
      this.replaced();
    });
  }

  private replaced(): void {
    this.changes.publish({ topic: 'reset', environment: null });
  }

  /** Runs `fn` holding the mutex of every store given, taken in a fixed order. */
  private async exclusive<T>(stores: SqliteEnvStore[], fn: () => T): Promise<T> {
    const taken: SqliteEnvStore[] = [];
    try {
      for (const store of stores) {
        if (!store.mutex.tryLock()) await store.mutex.lock();
        taken.push(store);
      }
      return fn();
    } finally {
      for (const store of taken.reverse()) store.mutex.unlock();
    }
  }
}
