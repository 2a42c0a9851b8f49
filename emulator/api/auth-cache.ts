import type { ChangeFeed } from '../store/changes.js';
import type { Environment } from '../../src/contract/store.js';
import type { AuthContext } from '../http/auth.js';
import { VerifiedSecrets } from './verified-secrets.js';

/**
 * The credential → integration → store records of recent keys, kept until the storage reports a
 * write to a store, integration or credential of the environment (rotation, revocation, suspension,
 * scope and settings changes, resets, restores); the next call then reads them again. Writes to
 * other tables (orders, the catalog) leave it alone. Time-based rules (expiry) are checked on every
 * call by the caller. It saves three reads and their JSON decoding on every request. Kept only where
 * changes are reported before any later read (`changes.exact`: one process on the embedded database).
 */
export class AuthCache {
  private readonly entries = new Map<string, AuthContext>();
  private readonly enabled: boolean;
  /**
   * The secrets verified recently (verified-secrets.ts), on every storage: they save the hash and
   * decide nothing, yet go with the records all the same.
   */
  readonly secrets = new VerifiedSecrets();

  constructor(private readonly changes: ChangeFeed, environment: Environment) {
    this.enabled = changes.exact;
    changes.on('auth', (change) => {
      if (change.environment === environment) this.forget();
    });
    changes.on('reset', () => this.forget());
  }

  private forget(): void {
    this.entries.clear();
    this.secrets.clear();
  }

  get(keyId: string): AuthContext | undefined {
    return this.enabled ? this.entries.get(keyId) : undefined;
  }

  /** The version to hand back to `set`: a fill whose records were read before a change is not kept. */
  ticket(): number {
    return this.changes.version('auth');
  }

  /** Records as this cache hands them out (frozen), without keeping them. */
  freeze(auth: AuthContext): AuthContext {
    return deepFreeze(auth);
  }

  /** Keeps the records frozen: a caller that changed one would change what the next request reads. */
  set(keyId: string, auth: AuthContext, ticket: number): AuthContext {
    const frozen = deepFreeze(auth);
    if (!this.enabled || ticket !== this.changes.version('auth')) return frozen;
    if (this.entries.size >= 1000) this.entries.clear();
    this.entries.set(keyId, frozen);
    return frozen;
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
