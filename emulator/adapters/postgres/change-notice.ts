import { ENVIRONMENTS, type Environment } from '../../../src/contract/store.js';
import type { Change } from '../../store/changes.js';

/**
 * A change notice as the processes of a sandbox send it on their channel: `o` the sending process,
 * `c` what its transaction changed, `s` that the shared state changed (faults, chaos, armed faults).
 */
export interface ChangeNotice {
  o: string;
  c?: Change[];
  s?: 1;
}

/** A notice holds less than 8,000 bytes, so far fewer changes than this. */
const MAX_CHANGES = 1000;

const isEnvironment = (v: unknown): v is Environment => typeof v === 'string' && (ENVIRONMENTS as readonly string[]).includes(v);
const isStoreId = (v: unknown) => v === null || typeof v === 'string';

/** Whether `v` is a change exactly as this adapter sends one (every field its topic has, of its type). */
function isChange(v: unknown): v is Change {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  switch (c.topic) {
    case 'auth':
      return isEnvironment(c.environment);
    case 'catalog':
      return isEnvironment(c.environment) && isStoreId(c.storeId);
    case 'orders':
      return isEnvironment(c.environment) && isStoreId(c.storeId) && typeof c.orderId === 'string';
    case 'webhooks':
      return isEnvironment(c.environment) && isStoreId(c.storeId) && typeof c.config === 'boolean';
    case 'events':
      return isEnvironment(c.environment) && typeof c.storeId === 'string' && typeof c.type === 'string';
    case 'clock':
    case 'reset':
      return c.environment === null;
    default:
      return false;
  }
}

/**
 * The notice a payload holds, or null when it is not one: any role that can connect to the database
 * may NOTIFY on the channel, so a payload is checked whole (JSON, shape, every change) before any of
 * it is used. A notice is taken or refused whole: half of one would leave a cache half told.
 */
export function parseChangeNotice(payload: string): ChangeNotice | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { o, c, s } = value as Record<string, unknown>;
  if (typeof o !== 'string' || o.length === 0) return null;
  if (s !== undefined && s !== 1) return null;
  if (c !== undefined && (!Array.isArray(c) || c.length > MAX_CHANGES || !c.every(isChange))) return null;
  if (c === undefined && s === undefined) return null;
  return { o, ...(c ? { c: c as Change[] } : {}), ...(s ? { s: 1 as const } : {}) };
}

/** How often a flood of refused notices is told again, at most. */
const TELL_EVERY_MS = 60_000;

/**
 * Tells of notices that were not the sandbox's: the first at once, then how many more at most once a
 * minute (anyone who can connect can send thousands). The payload is shown quoted and cut short: it is
 * a stranger's text, so it never reaches the log as lines of its own.
 */
export class RefusedNotices {
  private told = -Infinity;
  private since = 0;

  constructor(
    private readonly channel: string,
    private readonly warn: (message: string) => void = (message) => process.emitWarning(message),
    private readonly now: () => number = Date.now,
  ) {}

  refused(payload: string, why = 'not one of this sandbox\'s change notices'): void {
    const now = this.now();
    if (now - this.told < TELL_EVERY_MS) {
      this.since++;
      return;
    }
    const more = this.since > 0 ? ` (and ${this.since} more since the last such line)` : '';
    this.since = 0;
    this.told = now;
    const shown = JSON.stringify(payload.length > 80 ? `${payload.slice(0, 80)}…` : payload);
    this.warn(`ignored a change notice on ${this.channel}: ${why}, payload ${shown}${more}`);
  }
}
