import { ID_PREFIXES } from '../../../contract/ids.js';
import { isPrivateField, REDACTED, redactJson } from '../proxy/record.js';

/** One place where the replayed answer differs from the recorded one. */
export interface Difference {
  /** JSON path in the body (`data.items.0.name`), or `status`. */
  path: string;
  recorded: unknown;
  actual: unknown;
}

const PREFIXES = Object.values(ID_PREFIXES).map((p) => p.slice(0, -1)).join('|');
// Resource ids, and credential key ids (`svk_test_…`), which differ between two emulators too.
const ID_SOURCE = `(?:${PREFIXES})_[0-9A-HJKMNP-TV-Z]{26}|svk_(?:live|test)_[0-9A-Za-z]{24}`;
const ID = new RegExp(`^(?:${ID_SOURCE})$`);
const ID_IN_TEXT = new RegExp(`\\b(?:${ID_SOURCE})\\b`, 'g');

/** `ord` for `ord_…`, `svk_test` for a key id. */
const idKind = (id: string) => id.slice(0, id.lastIndexOf('_'));
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
// Text the recorder masked, or secrets that are new on every run: never comparable.
const UNCOMPARABLE = /\[redacted\]|^whsec_|^svs_/;

/**
 * Ids of the recording mapped to the ids the replay target gave the same things (orders, deliveries,
 * sync runs…). Learnt from answers compared side by side; applied to later requests.
 */
export class IdMap {
  readonly #map = new Map<string, string>();
  readonly #taken = new Set<string>();

  get(recorded: string): string | undefined {
    return this.#map.get(recorded);
  }

  /** Learns recorded → actual unless either side is already paired with something else. */
  learn(recorded: string, actual: string): boolean {
    const known = this.#map.get(recorded);
    if (known !== undefined) return known === actual;
    if (this.#taken.has(actual) && recorded !== actual) return false;
    this.#map.set(recorded, actual);
    this.#taken.add(actual);
    return true;
  }

  /** Every recorded id in the text replaced by its mapped id. */
  apply(text: string): string {
    return text.replace(ID_IN_TEXT, (id) => this.#map.get(id) ?? id);
  }
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * The differences between a recorded and a replayed JSON body, ignoring what changes on every run:
 * ids (mapped, so the same thing must keep the same id throughout), request ids, times and redacted
 * values. Walks iteratively: deep bodies are fine.
 */
export function compareBodies(recorded: unknown, actual: unknown, ids: IdMap): Difference[] {
  const out: Difference[] = [];
  const stack: [string, unknown, unknown][] = [['', recorded, actual]];
  while (stack.length) {
    const [path, r, a] = stack.pop()!;
    if (typeof r === 'string' && typeof a === 'string') {
      if (!sameText(r, a, ids)) out.push({ path: path || '(body)', recorded: r, actual: a });
      continue;
    }
    if (kind(r) !== kind(a)) {
      out.push({ path: path || '(body)', recorded: r, actual: a });
      continue;
    }
    if (Array.isArray(r)) {
      const list = a as unknown[];
      if (r.length !== list.length) out.push({ path: `${path || '(body)'}.length`, recorded: r.length, actual: list.length });
      for (let i = Math.min(r.length, list.length) - 1; i >= 0; i--) stack.push([join(path, i), r[i], list[i]]);
      continue;
    }
    if (r && typeof r === 'object') {
      const ro = r as Record<string, unknown>;
      const ao = a as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(ro), ...Object.keys(ao)])].reverse();
      for (const key of keys) {
        if (!(key in ao)) out.push({ path: join(path, key), recorded: ro[key], actual: undefined });
        else if (!(key in ro)) out.push({ path: join(path, key), recorded: undefined, actual: ao[key] });
        else stack.push([join(path, key), ro[key], ao[key]]);
      }
      continue;
    }
    if (r !== a) out.push({ path: path || '(body)', recorded: r, actual: a });
  }
  return out;
}

function sameText(r: string, a: string, ids: IdMap): boolean {
  if (r === a) {
    if (ID.test(r)) ids.learn(r, a);
    return true;
  }
  if (UNCOMPARABLE.test(r) || UNCOMPARABLE.test(a)) return true;
  if (DATETIME.test(r) && DATETIME.test(a)) return true;
  if (ID.test(r) && ID.test(a) && idKind(r) === idKind(a)) return idKind(r) === 'req' || ids.learn(r, a);
  return false;
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/**
 * A difference as it may be printed: the replay target's answers hold fresh secrets (a webhook's
 * signing secret, an entrega's private code) that the recording masked, and a field missing on one
 * side is shown whole, so both sides are redacted like a recorded body.
 */
export function redactDifference(d: Difference): Difference {
  const field = d.path.slice(d.path.lastIndexOf('.') + 1);
  const mask = (v: unknown) => (v === undefined ? v : isPrivateField(field) && v !== null ? REDACTED : shown(v));
  return { path: d.path, recorded: mask(d.recorded), actual: mask(d.actual) };
}

// A difference is printed with JSON.stringify, which recurses: a value nested deeper is summarised.
const MAX_SHOWN_DEPTH = 64;

function shown(value: unknown): unknown {
  try {
    return redactJson(value, MAX_SHOWN_DEPTH);
  } catch {
    return `[a value nested deeper than ${MAX_SHOWN_DEPTH} levels]`;
  }
}
