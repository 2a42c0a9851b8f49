import { LIMITS } from '../../../src/contract/limits.js';
import { WindowCounter } from '../../http/rate-limit.js';
import type { RateWindows, WindowKind } from '../coordination.js';

/** spec: Limits — the per-minute allowances of each kind of window. */
export const WINDOW_LIMITS: Record<WindowKind, number> = {
  requests: LIMITS.requestsPerMinute,
  auth_failures: LIMITS.authFailuresPerMinute,
  batches: LIMITS.batchesPerMinute,
  admin_failures: LIMITS.authFailuresPerMinute,
};

/** The rate windows of one process (one process is the whole sandbox on the embedded database). */
export class LocalWindows implements RateWindows {
  private readonly counters = Object.fromEntries(
    Object.entries(WINDOW_LIMITS).map(([kind, limit]) => [kind, new WindowCounter(limit)]),
  ) as Record<WindowKind, WindowCounter>;

  hit(kind: WindowKind, key: string, now: number) {
    return this.counters[kind].hit(key, now);
  }

  exhausted(kind: WindowKind, key: string, now: number): boolean {
    return this.counters[kind].exhausted(key, now);
  }

  limit(kind: WindowKind): number {
    return WINDOW_LIMITS[kind];
  }

  clear(): void {
    for (const counter of Object.values(this.counters)) counter.clear();
  }
}
