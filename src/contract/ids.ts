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

/** A 26-character ULID: 10 characters of milliseconds, 16 of randomness. */
export function ulid(timeMs: number, random: RandomSource = cryptoRandom): string {
  let time = '';
  let t = Math.max(0, Math.floor(timeMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = random.bytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i] % 32];
  return time + rand;
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
