import { ENVIRONMENTS } from '../../../src/contract/store.js';
import { statement, tableIn, type Conn } from './conn.js';
import { isDriverUnavailable } from './errors.js';
import type { SchemaNames } from './schema.js';

/** A claim's lease (idempotency keys, the one-batch rule), in real time, unless told otherwise. */
export const DEFAULT_LEASE_MS = 30_000;
/** How often a claim's settling that the database refused (it was away) is tried again. */
const SETTLE_RETRY_MS = 1_000;

/**
 * Keeps this process's claims alive. An idempotency claim or a batch gate is held for as long as its
 * request runs, which has no fixed bound (a batch of 500 operations, an injected delay): rather than a
 * lease long enough for any request, which would keep a dead process's keys blocked as long, the
 * leases are short and renewed every third of their length while the process holds any. A process
 * that dies stops renewing, and its claims are free again one lease later.
 */
export class LeaseKeeper {
  private held = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly renewals;

  constructor(
    private readonly conn: Conn,
    names: SchemaNames,
    readonly owner: string,
    readonly leaseMs: number = DEFAULT_LEASE_MS,
  ) {
    this.renewals = [
      ...ENVIRONMENTS.map((env) =>
        statement(`UPDATE ${tableIn(names.env[env])('idempotency_keys')} SET lease_until = $1 WHERE owner = $2 AND state = 'processing'`),
      ),
      statement(`UPDATE ${tableIn(names.shared)('batch_gate')} SET lease_until = $1 WHERE owner = $2`),
    ];
  }

  /** The end of a lease taken now. */
  until(): number {
    return Date.now() + this.leaseMs;
  }

  taken(): void {
    this.held++;
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.leaseMs / 3)));
      this.timer.unref();
    }
  }

  given(): void {
    this.held = Math.max(0, this.held - 1);
    if (this.held === 0) this.stopRenewing();
  }

  /**
   * Gives a claim up with `write` (its release, or its answer stored). Should the database be away,
   * the claim's row would stay held by this process — renewed with its other claims, a key answering
   * `request_in_progress` or a batch gate shut for as long as the process lives — so the write is
   * tried again every second until it goes through. Either way the claim is no longer held here.
   */
  async settle(id: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (isDriverUnavailable(error)) this.retryLater(id, write);
      throw error;
    } finally {
      this.given();
    }
  }

  private readonly unsettled = new Map<string, () => Promise<unknown>>();
  private retryTimer: NodeJS.Timeout | null = null;
  private retrying = false;

  private retryLater(id: string, write: () => Promise<unknown>): void {
    this.unsettled.set(id, write);
    if (!this.retryTimer) {
      this.retryTimer = setInterval(() => void this.retry(), SETTLE_RETRY_MS);
      this.retryTimer.unref();
    }
  }

  private async retry(): Promise<void> {
    if (this.retrying) return;
    this.retrying = true;
    try {
      for (const [id, write] of [...this.unsettled]) {
        await write(); // still away: the next tick tries again
        this.unsettled.delete(id);
      }
      this.stopRetrying();
    } catch {
      // The database is still away.
    } finally {
      this.retrying = false;
    }
  }

  /** Everything held is gone (a reset emptied the tables). */
  forget(): void {
    this.held = 0;
    this.stop();
  }

  /** Nothing is renewed or settled any more (the storage closes, or a reset emptied the tables). */
  stop(): void {
    this.stopRenewing();
    this.unsettled.clear();
    this.stopRetrying();
  }

  private stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private stopRetrying(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
  }

  async renew(): Promise<void> {
    const until = this.until();
    // An unreachable database is retried at the next tick; the leases are three ticks long.
    for (const s of this.renewals) await this.conn.run(s, [until, this.owner]).catch(() => undefined);
  }
}
