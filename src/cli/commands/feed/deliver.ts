import { forward } from '../listen/forward.js';

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    };
    const abort = () => (done(), reject(signal.reason));
    const timer = setTimeout(() => (done(), resolve()), ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** Backoff before retry `n` (1-based): 1 s, 2 s, 4 s … capped at `maxMs`. */
export function backoffMs(n: number, maxMs: number): number {
  return Math.min(1000 * 2 ** Math.min(n - 1, 16), maxMs);
}

export interface ForwardUntilTakenOptions {
  url: URL;
  /** Fresh headers for each attempt (a signature's timestamp must be current). */
  headers: () => Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** The longest wait between attempts. */
  maxDelayMs: number;
  /** One line per failed attempt, for stderr. */
  log: (line: string) => void;
  /** Names what is forwarded in those lines: `evt_…` or `order ord_…`. */
  label: string;
}

/**
 * POSTs `body` to the app until it answers 2xx (resolving with that status and the attempts it
 * took); a non-2xx answer, a timeout or a refused
 * connection waits (with backoff) and tries again. Only a stop (the signal) ends it early, by
 * rejecting: the caller then keeps its position before this item, so the app is never skipped.
 * An attempt already sent is let finish (at most the forward timeout), never cut halfway.
 */
export async function forwardUntilTaken(o: ForwardUntilTakenOptions): Promise<{ status: number; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    if (o.signal.aborted) throw o.signal.reason;
    const result = await forward(o.url, o.headers(), Buffer.from(o.body, 'utf8'));
    if (result.ok && result.status >= 200 && result.status < 300) return { status: result.status, attempts: attempt };
    const delay = backoffMs(attempt, o.maxDelayMs);
    const why = result.ok ? `answered ${result.status}` : `failed: ${result.error}`;
    o.log(`Forwarding ${o.label} to ${o.url.href} ${why}; retrying in ${Math.round(delay / 100) / 10} s (the cursor stays before it).`);
    await sleep(delay, o.signal);
  }
}
