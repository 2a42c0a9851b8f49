import type { Db } from '../db/open.js';
import type { AuthContext } from './auth.js';

/**
 * The credential → integration → store records of recent keys, kept while the environment's
 * database has not changed. SQLite's `total_changes()` moves with every INSERT, UPDATE or DELETE on
 * the connection (rotation, revocation, suspension, scope changes, resets), so any write empties the
 * cache and the next call reads the rows again; time-based rules (expiry) are checked on every call
 * by the caller. It saves three queries and their JSON decoding on every authenticated request.
 */
export class AuthCache {
  private readonly entries = new Map<string, AuthContext>();
  private readonly totalChanges: () => number;
  private changes = -1;

  constructor(db: Db) {
    const statement = db.prepare<[], number>('SELECT total_changes()').pluck();
    this.totalChanges = () => statement.get() as number;
  }

  get(keyId: string): AuthContext | undefined {
    const changes = this.totalChanges();
    if (changes !== this.changes) {
      this.entries.clear();
      this.changes = changes;
    }
    return this.entries.get(keyId);
  }

  /** Keeps the records frozen: a caller that changed one would change what the next request reads. */
  set(keyId: string, auth: AuthContext): AuthContext {
    if (this.entries.size >= 1000) this.entries.clear();
    const frozen = deepFreeze(auth);
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
