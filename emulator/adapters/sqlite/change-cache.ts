import type { Db } from './open.js';

/**
 * Values computed from one environment's database, kept while the database has not changed.
 * SQLite's `total_changes()` moves with every INSERT, UPDATE or DELETE on the connection, so any
 * write empties the cache. Nothing is kept while a transaction is open: a value read there may
 * belong to writes that are then rolled back, and a rollback does not move the counter.
 */
export class ChangeCache<V> {
  private readonly entries = new Map<string, V>();
  /** Keys computed once since the last change, when values are kept on their second computation. */
  private readonly missedOnce = new Set<string>();
  private readonly totalChanges: () => number;
  private changes = -1;

  /**
   * `keepOnSecondMiss`: a value is kept only when it is computed a second time with no write in
   * between. For large values read between writes (a products page during a sync), keeping each one
   * until the next write costs more (memory, garbage collection) than computing it again.
   */
  constructor(
    private readonly db: Db,
    private readonly maxEntries = 10_000,
    private readonly keepOnSecondMiss = false,
  ) {
    const statement = db.prepare<[], number>('SELECT total_changes()').pluck();
    this.totalChanges = () => statement.get() as number;
  }

  get(key: string): V | undefined {
    this.sync();
    return this.entries.get(key);
  }

  /**
   * Keeps a value computed after `get` missed, unless a transaction is open or the database
   * changed since that `get` (the value may then be older than the data); returns it either way.
   */
  set(key: string, value: V): V {
    if (this.db.inTransaction || this.totalChanges() !== this.changes) return value;
    this.keep(key, value);
    return value;
  }

  private keep(key: string, value: V): void {
    if (this.keepOnSecondMiss && !this.missedOnce.has(key)) {
      if (this.missedOnce.size >= this.maxEntries) this.missedOnce.clear();
      this.missedOnce.add(key);
      return;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
  }

  private sync(): void {
    const changes = this.totalChanges();
    if (changes !== this.changes) {
      this.entries.clear();
      this.missedOnce.clear();
      this.changes = changes;
    }
  }
}
