import { cryptoRandom, type RandomSource } from './random.js';

// spec: Conventions, Identifiers — a prefix plus 26 characters (a ULID here).
export const ID_PREFIXES = {
  store: 'str_',
  integration: 'int_',
  category: 'cat_',
  product: 'prd_',
  optionGroup: 'ogr_',
  option: 'opt_',
  order: 'ord_',
  event: 'evt_',
  delivery: 'dlv_',
  request: 'req_',
  syncRun: 'snc_',
  entrega: 'ent_',
  // The operator's public test environment (DESIGN): an integrator's access request, a certificate.
  accessRequest: 'acr_',
  certificate: 'crt_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Two characters of the alphabet for each pair of 5-bit values: a ULID's randomness in 8 steps, not 16. */
const PAIRS: string[] = Array.from({ length: 1024 }, (_, i) => CROCKFORD[i >> 5]! + CROCKFORD[i & 31]!);

/** The 10 characters of a millisecond instant (the last one made is kept: ids made in the same millisecond share it). */
let lastMs = -1;
let lastTime = '';
function timePart(ms: number): string {
  if (ms === lastMs) return lastTime;
  let time = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  lastMs = ms;
  return (lastTime = time);
}

/**
 * A 26-character ULID: 10 characters of milliseconds, 16 of randomness (each from the low 5 bits
 * of one random byte). Made for every request (its request id), so it does no more than it must.
 */
export function ulid(timeMs: number, random: RandomSource = cryptoRandom): string {
  const time = timePart(Math.max(0, Math.floor(timeMs)));
  const b = random.bytes(16);
  return time + PAIRS[((b[0]! & 31) << 5) | (b[1]! & 31)] + PAIRS[((b[2]! & 31) << 5) | (b[3]! & 31)] +
    PAIRS[((b[4]! & 31) << 5) | (b[5]! & 31)] + PAIRS[((b[6]! & 31) << 5) | (b[7]! & 31)] +
    PAIRS[((b[8]! & 31) << 5) | (b[9]! & 31)] + PAIRS[((b[10]! & 31) << 5) | (b[11]! & 31)] +
    PAIRS[((b[12]! & 31) << 5) | (b[13]! & 31)] + PAIRS[((b[14]! & 31) << 5) | (b[15]! & 31)];
}

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}[0-9A-HJKMNP-TV-Z]{26}$`);
}

// One compiled pattern per kind: cursors are checked on every page (the patterns have no `g` flag).
const PATTERNS = new Map<IdKind, RegExp>();

export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  let pattern = PATTERNS.get(kind);
  if (!pattern) PATTERNS.set(kind, (pattern = idPattern(kind)));
  return pattern.test(value);
}

/** Makes ids from one clock and one random source, so a seeded run makes the same ids. */
export class IdFactory {
  constructor(
    private readonly now: () => number,
    private readonly random: RandomSource = cryptoRandom,
  ) {}

  next(kind: IdKind): string {
    return ID_PREFIXES[kind] + ulid(this.now(), this.random);
  }
}
