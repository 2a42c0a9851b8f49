import type { Db } from '../store/sqlite/open.js';
import { rowWatch } from '../store/sqlite/row-watch.js';
import type { AuthContext } from './auth.js';

/**
 * The credential → integration → store records of recent keys, kept until SQLite reports a write
 * to any store, integration or credential row (db/row-watch.ts: rotation, revocation, suspension,
 * scope and settings changes, resets, restores); the next call then reads the rows again. Writes
 * to other tables (orders, the catalog) leave it alone. Time-based rules (expiry) are checked on
 * every call by the caller. It saves three queries and their JSON decoding on every request.
 */
export class AuthCache {
  private readonly entries = new Map<string, AuthContext>();
  private readonly version: () => number;
  private seen = -1;

  constructor(private readonly db: Db) {
    this.version = rowWatch(db).authVersion;
  }

  get(keyId: string): AuthContext | undefined {
    const version = this.version();
    if (version !== this.seen) {
      this.entries.clear();
      this.seen = version;
    }
    return this.entries.get(keyId);
  }

  /** Keeps the records frozen: a caller that changed one would change what the next request reads. */
  set(keyId: string, auth: AuthContext): AuthContext {
    const frozen = deepFreeze(auth);
    // Rows read inside a transaction may be rolled back, and a rollback reports nothing.
    if (this.db.inTransaction) return frozen;
    if (this.entries.size >= 1000) this.entries.clear();
    this.entries.set(keyId, frozen);
    return frozen;
  }
}

const caches = new WeakMap<Db, AuthCache>();

export function authCacheOf(db: Db): AuthCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new AuthCache(db)));
  return cache;
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
