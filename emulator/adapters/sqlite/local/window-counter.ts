import { fixedWindow } from '../../../clock.js';

/** Fixed-minute counters on the emulator's clock (DESIGN: windows are fixed minutes). */
export class WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: number) {}

  /** Counts one hit and says whether it is within the limit. */
  hit(key: string, now: number): { allowed: boolean; remaining: number; retryAfterSeconds: number } {
    const window = fixedWindow(now);
    const w = this.current(key, window.start);
    w.count += 1;
    return { allowed: w.count <= this.limit, remaining: Math.max(0, this.limit - w.count), retryAfterSeconds: window.retryAfterSeconds };
  }

  /** Whether the key has already used its allowance this window, without counting. */
  exhausted(key: string, now: number): boolean {
    // A key without a count this window has used nothing: no entry is made for it (every request asks).
    const w = this.windows.get(key);
    const used = w !== undefined && w.start === fixedWindow(now).start ? w.count : 0;
    return used >= this.limit;
  }

  get max(): number {
    return this.limit;
  }

  clear(): void {
    this.windows.clear();
  }

  private current(key: string, start: number) {
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.prune(start);
    }
    return w;
  }

  private prune(start: number): void {
    for (const [k, w] of this.windows) if (w.start !== start) this.windows.delete(k);
  }
}
