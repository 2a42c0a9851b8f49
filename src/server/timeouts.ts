/**
 * How long the toolkit's servers (the emulator, `listen`, `proxy`) wait for a request: 10 s for its
 * headers, 30 s for headers and body (docs/emulator.md, Decisions). Node's own defaults (60 s and
 * 300 s) let a stalled socket live a minute or more.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** `node:http` server options with those deadlines (`requestTimeoutMs` is shorter in some tests). */
export function serverTimeouts(requestTimeoutMs = REQUEST_TIMEOUT_MS): {
  requestTimeout: number;
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
    // How often Node looks for late requests: a late one is cut within this much of its deadline.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 3))),
  };
}
