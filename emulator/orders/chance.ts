import type { RandomSource } from '../../src/contract/random.js';

/** Choices drawn from the environment's random source, so `--seed` reproduces them. */
export class Chance {
  constructor(private readonly random: RandomSource) {}

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.random.float() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }

  bool(probability: number): boolean {
    return this.random.float() < probability;
  }

  digits(n: number): string {
    let out = String(this.int(1, 9));
    while (out.length < n) out += String(this.int(0, 9));
    return out;
  }

  /** `count` distinct items, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const indexes = items.map((_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
    }
    return indexes.slice(0, count).sort((a, b) => a - b).map((i) => items[i]);
  }
}
