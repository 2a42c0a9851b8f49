/** Values kept by key, bounded by count and bytes: past either bound, everything is dropped and read again. */
export class Kept<T> {
  private readonly entries = new Map<string, T>();
  private bytes = 0;

  constructor(private readonly maxCount: number, private readonly maxBytes: number, private readonly sizeOf: (value: T) => number) {}

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  drop(key: string): void {
    const before = this.entries.get(key);
    if (before === undefined) return;
    this.bytes -= this.sizeOf(before);
    this.entries.delete(key);
  }

  keep(key: string, value: T): void {
    this.drop(key);
    const size = this.sizeOf(value);
    if (this.entries.size >= this.maxCount || this.bytes + size > this.maxBytes) this.clear();
    this.entries.set(key, value);
    this.bytes += size;
  }

  /** Forgets everything kept. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** What is kept is handed to every reader while current: frozen, so that none of them can change it for the others. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
