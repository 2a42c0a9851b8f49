import { afterEach, beforeEach, describe } from 'vitest';
import { createClock, type Clock } from '../../../../emulator/clock.js';
import { IdFactory } from '../../../../src/contract/ids.js';
import type { Environment } from '../../../../src/contract/store.js';
import type { EmitContext } from '../../../../emulator/store/emit.js';
import type { Outbox, StoragePort } from '../../../../emulator/store/port.js';
import { SqliteStorage } from '../../../../emulator/adapters/sqlite/index.js';
import { PostgresStorage, type PostgresOptions } from '../../../../emulator/adapters/postgres/index.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';

export type AdapterKind = 'sqlite' | 'postgres';

/** One test's storage and what surrounds it. */
export interface Harness {
  readonly kind: AdapterKind;
  /** A fresh, empty storage for each test. */
  readonly storage: StoragePort;
  readonly clock: Clock;
  readonly context: EmitContext;
  /** The outbox `emit` calls (none until a test sets one). */
  outbox: Outbox | null;
  /**
   * Another storage on the same sandbox, as a second process would open it (PostgreSQL only: the
   * embedded database has one process).
   */
  openAnother(options?: PostgresOptions): Promise<StoragePort>;
  /** The test's own database (PostgreSQL only). */
  readonly database: TestDatabase | null;
}

function makeHarness(kind: AdapterKind): Harness {
  const clock = createClock('manual', () => Date.UTC(2026, 0, 15, 12));
  const state = {
    storage: null as StoragePort | null,
    outbox: null as Outbox | null,
    database: null as TestDatabase | null,
    others: [] as StoragePort[],
  };
  const context: EmitContext = {
    clock: () => clock,
    ids: () => new IdFactory(() => clock.now()),
    outbox: () => state.outbox,
  };
  const harness: Harness = {
    kind,
    get storage() {
      return state.storage!;
    },
    clock,
    context,
    get outbox() {
      return state.outbox;
    },
    set outbox(o) {
      state.outbox = o;
    },
    get database() {
      return state.database;
    },
    async openAnother(options = {}) {
      if (kind !== 'postgres') throw new Error('one process owns the embedded database');
      const other = await PostgresStorage.open(state.database!.url, context, options);
      state.others.push(other);
      return other;
    },
  };
  beforeEach(async () => {
    state.outbox = null;
    clock.reset();
    if (kind === 'sqlite') {
      state.storage = new SqliteStorage({ dataDir: null }, context);
    } else {
      // A database of its own for each test, a copy of the run's migrated template: a fresh sandbox
      // without migrating one per test (a migration cost the server about twice a copy and its drop
      // with the cluster in memory: docs/contributing.md, "PostgreSQL in the tests").
      state.database = await createTestDatabase({ migrated: true });
      state.storage = await PostgresStorage.open(state.database.url, context, { poolSize: 6 });
    }
  });
  afterEach(async () => {
    for (const other of state.others.splice(0)) await other.close();
    await state.storage?.close();
    state.storage = null;
    await state.database?.drop();
    state.database = null;
  });
  return harness;
}

/** Runs the same tests on both adapters (PostgreSQL only when a test server is given; never skipped on CI). */
export function describeAdapters(title: string, body: (h: Harness) => void): void {
  for (const kind of ['sqlite', 'postgres'] as const) {
    describe.skipIf(kind === 'postgres' && !PG_URL)(`${title} (${kind})`, () => body(makeHarness(kind)));
  }
}

/** PostgreSQL only: several processes on one sandbox. */
export function describePostgres(title: string, body: (h: Harness) => void): void {
  describe.skipIf(!PG_URL)(title, () => body(makeHarness('postgres')));
}

export type { Environment };
