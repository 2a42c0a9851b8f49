import { randomBytes } from 'node:crypto';

/** A source of random bytes: crypto by default, a seeded generator for reproducible runs. */
export interface RandomSource {
  bytes(n: number): Uint8Array;
  /** A float in [0, 1). */
  float(): number;
}

// One crypto call per 4 KB rather than per id: `randomBytes` costs as much as the rest of making a
// request id. Each refill is a fresh buffer, so bytes already handed out never change.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

function pooledBytes(n: number): Buffer {
  if (n > POOL_BYTES / 4) return randomBytes(n);
  if (used + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

export const cryptoRandom: RandomSource = {
  bytes: pooledBytes,
  float: () => pooledBytes(4).readUInt32BE(0) / 0x1_0000_0000,
};

/**
 * sfc32 seeded from an integer: small, fast and good enough for reproducible test data.
 * Never used for credentials or secrets (those always come from crypto).
 */
export function seededRandom(seed: number): RandomSource {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return (r >>> 0) / 0x1_0000_0000;
  };
  for (let i = 0; i < 15; i++) next();
  return {
    float: next,
    bytes: (n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)),
  };
}
