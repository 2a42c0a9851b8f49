/**
 * One holder at a time, FIFO. Taking a free mutex is synchronous (`tryLock`), so the usual case (no
 * other transaction under way) costs no promise. The embedded adapter runs each environment's
 * transactions under one: its connection is shared, and a transaction spans awaits.
 */
export class Mutex {
  private held = false;
  private readonly waiting: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  get locked(): boolean {
    return this.held;
  }

  /** Takes the mutex if it is free; true when taken. */
  tryLock(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Resolves once the mutex is this caller's. */
  lock(): Promise<void> {
    if (this.tryLock()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  unlock(): void {
    const next = this.waiting.shift();
    if (next) {
      next(); // handed over: stays held
      return;
    }
    this.held = false;
    const idle = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of idle) resolve();
  }

  /** Resolves when nobody holds the mutex (readers that must not see a transaction's writes wait here). */
  idle(): Promise<void> {
    if (!this.held) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Runs `fn` at a moment nobody holds the mutex, without taking it: a holder may take it again
   * between the wake-up and this caller's turn, so it waits until none does, then calls `fn` at once.
   */
  async whenFree<T>(fn: () => T | Promise<T>): Promise<T> {
    while (this.held) await this.idle();
    return fn();
  }
}
