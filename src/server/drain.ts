import type { IncomingMessage } from 'node:http';

/** At most this much more of a refused body is read before answering (no API body comes close). */
export const DRAIN_BYTES = 16_000_000;
/** And for at most this long (real time; a stalled client meets the request deadline anyway). */
export const DRAIN_MS = 10_000;

/**
 * DESIGN, Storage and the team sandbox: a 413 is readable by a client still writing. A server that
 * refuses a body before reading it (over 5 MB by its Content-Length, or as it grows) and closes the
 * connection at once leaves the client's bytes unread: the kernel then resets the connection, and
 * the answer waiting in the client's buffer is thrown away (the client sees EPIPE or ECONNRESET).
 * So the rest of the body is read and dropped first: this resolves once the request's body has
 * ended, the client has gone, or DRAIN_BYTES more or DRAIN_MS have passed, and the caller answers
 * then. Past the bound the answer goes anyway and the connection is cut after it, as before.
 */
export function readRestOfBody(req: IncomingMessage, maxBytes = DRAIN_BYTES, maxMs = DRAIN_MS): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) done();
    };
    const timer = setTimeout(done, maxMs);
    timer.unref();
    req.on('data', count);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}
