import { WindowCounter } from './window-counter.js';
import { WINDOW_LIMITS, type RateWindows, type WindowKind } from '../../../store/coordination.js';

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
