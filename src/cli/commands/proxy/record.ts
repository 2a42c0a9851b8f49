import { createWriteStream, type WriteStream } from 'node:fs';
import { redactSecrets } from '../../../logging/redact.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../../server/json-depth.js';
import type { Violation } from './validate.js';

/** One request and its answer as a line of the record file (format `merchant-kit.exchange`, version 1). */
export interface Exchange {
  format: 'merchant-kit.exchange';
  version: 1;
  seq: number;
  at: string;
  duration_ms: number;
  request: { method: string; path: string; headers: Record<string, string>; body: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
  violations: Violation[];
}

// Headers that carry a secret, or that say nothing about the exchange.
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const DROPPED_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);
// spec: Independent delivery — the code and tracking URL are private to the customer.
const PRIVATE_FIELDS = new Set(['delivery_code', 'tracking_url', 'signing_secret']);

export const REDACTED = '[redacted]';

/** True for a field whose value is never recorded or printed (spec: Independent delivery; webhook secret). */
export const isPrivateField = (name: string): boolean => PRIVATE_FIELDS.has(name);

/** Headers as recorded: secrets masked, hop-by-hop dropped, every value redacted of svs_/whsec_ text. */
export function recordHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || DROPPED_HEADERS.has(lower)) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[lower] = SECRET_HEADERS.has(lower) ? REDACTED : redactSecrets(text);
  }
  return out;
}

// Deeper JSON is recorded as text: JSON.stringify, which writes the line, recurses and would overflow;
// and it is never parsed (an answer nested millions of levels deep would hold the proxy for seconds).
const MAX_RECORDED_DEPTH = MAX_JSON_DEPTH;
const TOO_DEEP = Symbol('too deep');

/**
 * A JSON value with private fields and secret-looking text masked, iteratively (deep bodies too).
 * Throws when the value nests deeper than `maxDepth`.
 */
export function redactJson(value: unknown, maxDepth = Infinity): unknown {
  const root = { v: value };
  const stack: [Record<string, unknown> | unknown[], string | number, number][] = [[root as Record<string, unknown>, 'v', 0]];
  while (stack.length) {
    const [holder, key, depth] = stack.pop()!;
    const current = (holder as Record<string | number, unknown>)[key];
    if (depth > maxDepth && current !== null && typeof current === 'object') throw TOO_DEEP;
    if (typeof current === 'string') {
      (holder as Record<string | number, unknown>)[key] = redactSecrets(current);
    } else if (Array.isArray(current)) {
      const copy = current.slice();
      (holder as Record<string | number, unknown>)[key] = copy;
      for (let i = 0; i < copy.length; i++) stack.push([copy, i, depth + 1]);
    } else if (current && typeof current === 'object') {
      // Keys are text the client chose, and may carry a secret as well.
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(current as Record<string, unknown>)) copy[redactSecrets(k)] = v;
      (holder as Record<string | number, unknown>)[key] = copy;
      for (const k of Object.keys(copy)) {
        if (PRIVATE_FIELDS.has(k) && copy[k] !== null) copy[k] = REDACTED;
        else stack.push([copy, k, depth + 1]);
      }
    }
  }
  return root.v;
}

/** A body as recorded: parsed JSON redacted, other text redacted, binary as its size. */
export function recordBody(body: Buffer | undefined, contentType: string | undefined): unknown {
  if (body === undefined || body.length === 0) return null;
  const text = body.toString('utf8');
  if ((/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) && !nestedDeeperThan(body, MAX_RECORDED_DEPTH)) {
    try {
      return redactJson(JSON.parse(text), MAX_RECORDED_DEPTH);
    } catch {
      /* not JSON, or nested too deep to write as JSON: recorded as text below */
    }
  }
  return redactSecrets(text);
}

/** Appends exchanges to a JSONL file, one line each, in the order they finish. */
export class Recorder {
  readonly #out: WriteStream;
  #seq = 0;
  #failed: Error | undefined;

  constructor(file: string) {
    this.#out = createWriteStream(file, { flags: 'a', mode: 0o600 });
    this.#out.on('error', (error) => {
      this.#failed = error;
    });
  }

  get error(): Error | undefined {
    return this.#failed;
  }

  nextSeq(): number {
    return ++this.#seq;
  }

  write(exchange: Exchange): void {
    if (this.#failed) return;
    this.#out.write(`${JSON.stringify(exchange)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#out.end(resolve));
  }
}
