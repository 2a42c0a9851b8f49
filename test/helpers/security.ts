import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A request through node:http, which (unlike fetch) lets a test set `Host`, `Origin` and any method. */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, setHost: !('host' in headers) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Opens a socket, sends `head` (request line and headers) and `partial` bytes of a body, then waits
 * without sending more; resolves with everything the server wrote and how long until it closed.
 */
export function stalledRequest(url: string, head: string, partial: string, maxWaitMs: number): Promise<{ text: string; closedAfterMs: number | null }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs: null });
    }, maxWaitMs);
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.write(head + partial);
  });
}

export interface WholeBodyExchange {
  /** Everything the server sent, read only once the whole body was written. */
  text: string;
  /** The socket error the client met, if any (EPIPE, ECONNRESET). */
  error: string | null;
  /** Bytes of the body written before the end or the error. */
  written: number;
}

/**
 * A client that writes its whole body before it reads anything, as a simple client does (write the
 * request, then read the answer): `head` is the request line and headers (without the blank line),
 * then `total` bytes of spaces in 64 KB chunks (`chunked`: as chunks of Transfer-Encoding: chunked),
 * waiting for the socket to drain between them.
 */
export function writeWholeThenRead(origin: string, head: string, total: number, chunked = false): Promise<WholeBodyExchange> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let error: string | null = null;
    let written = 0;
    socket.pause();
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), error, written }));
    socket.on('connect', async () => {
      socket.write(`${head}\r\n\r\n`);
      const data = Buffer.alloc(64 * 1024, 0x20);
      while (written < total && !socket.destroyed) {
        const piece = data.subarray(0, Math.min(data.length, total - written));
        written += piece.length;
        const framed = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        if (!socket.write(framed)) await new Promise((r) => socket.once('drain', r).once('close', r));
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.resume();
      if (!socket.destroyed) socket.end();
    });
  });
}
