/**
 * The bytes of bodies the proxy may hold in memory at once, across all exchanges. A request
 * reserves its whole size (its Content-Length, or the cap when it is chunked) before its body is
 * read, and waits its turn when the budget is spent, so that 40 clients sending 5 MB each cost
 * what the budget allows, never 40 × 5 MB. Reserving whole sizes up front cannot deadlock: no
 * request holds part of the budget while it waits for more.
 */
export class ByteBudget {
  #free: number;
  readonly #waiting: { bytes: number; wake: () => void }[] = [];

  constructor(readonly capacity: number) {
    this.#free = capacity;
  }

  /** Resolves once `bytes` are reserved (at most the capacity), in the order asked. */
  async take(bytes: number): Promise<void> {
    const wanted = Math.min(bytes, this.capacity);
    // Nothing to hold (a GET): never queued behind a large body.
    if (wanted === 0) return;
    if (this.#waiting.length === 0 && wanted <= this.#free) {
      this.#free -= wanted;
      return;
    }
    await new Promise<void>((wake) => this.#waiting.push({ bytes: wanted, wake }));
  }

  /** Reserves `bytes` now if they are free (never waits); false otherwise. */
  tryTake(bytes: number): boolean {
    if (this.#waiting.length > 0 || bytes > this.#free) return false;
    this.#free -= bytes;
    return true;
  }

  release(bytes: number): void {
    this.#free += Math.min(bytes, this.capacity);
    while (this.#waiting.length > 0 && this.#waiting[0]!.bytes <= this.#free) {
      const next = this.#waiting.shift()!;
      this.#free -= next.bytes;
      next.wake();
    }
  }

  /** Bytes reserved now (for tests and the bench). */
  get used(): number {
    return this.capacity - this.#free;
  }
}
