import http from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Dispatcher } from 'undici';
import type { Answer, Exchange, Pool } from './pool.js';

/**
 * The CLI's pool (tsup.config.ts puts this file in place of pool.ts in the CLI's build): Node's own
 * HTTP client, whose code is in Node's binary, instead of undici, whose ~500 kB of JavaScript and
 * WebAssembly parser every request command compiled for its one or two calls (issue 27: ~45 ms of
 * CPU of a `merchant-kit me`'s ~110, bench/cli-start.mjs). Same interface as pool.ts, and the same
 * failures as the transport reads them: a network error keeps the socket's `code` (ECONNREFUSED with
 * its `address`), a timeout or an abort rejects with the signal's reason, a header value that cannot
 * be sent is refused before anything is sent. Connections are kept alive between a client's calls
 * (idle ones closed after 10 s or the server's keep-alive hint) and do not keep the process alive.
 * A caller's undici `dispatcher` (the library's option) is used through undici itself.
 */
export function openPool(dispatcher?: Dispatcher): Pool {
  if (dispatcher !== undefined) {
    // The library's pool on that dispatcher, loaded at the first call. `refused` is asked only after a
    // `send` failed, so the pool is there by then; `close` leaves the caller's dispatcher open, as it does.
    let undiciPool: Pool | undefined;
    const loaded = async () => (undiciPool ??= (await import('./pool.js')).openPool(dispatcher));
    return {
      send: async (url, exchange) => (await loaded()).send(url, exchange),
      refused: (cause) => undiciPool?.refused(cause) ?? false,
      close: async () => undiciPool?.close(),
    };
  }
  const agent = new http.Agent({ keepAlive: true, timeout: IDLE_MS });
  let secureAgent: HttpsAgent | undefined;
  const agentFor = async (target: URL) => {
    if (target.protocol === 'http:') return { lib: http, agent };
    // TLS only for an https:// base URL: `https` loads `tls`, which a loopback emulator never needs.
    const https = await import('node:https');
    secureAgent ??= new https.Agent({ keepAlive: true, timeout: IDLE_MS });
    return { lib: https, agent: secureAgent };
  };
  return {
    async send(url, exchange) {
      const target = new URL(url);
      const { lib, agent: used } = await agentFor(target);
      return exchangeOn(lib.request, used, target, exchange);
    },
    refused: (cause) => REFUSED.has((cause as { code?: unknown } | null)?.code as string),
    async close() {
      agent.destroy();
      secureAgent?.destroy();
    },
  };
}

/** How long an idle kept-alive connection stays open (undici's `keepAliveTimeout` in pool.ts). */
const IDLE_MS = 10_000;

/** Codes of Node's HTTP client for a request it refuses to send: invalid header names and values, a bad method or path. */
const REFUSED = new Set<unknown>(['ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_UNESCAPED_CHARACTERS']);

function exchangeOn(send: typeof http.request, agent: http.Agent, target: URL, exchange: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { signal } = exchange;
    if (signal.aborted) return reject(signal.reason);
    const headers = exchange.body === undefined ? exchange.headers : { ...exchange.headers, 'content-length': String(Buffer.byteLength(exchange.body)) };
    let request: http.ClientRequest;
    try {
      request = send(target, { method: exchange.method, headers, agent });
    } catch (refused) {
      return reject(refused);
    }
    const onAbort = () => {
      request.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const fail = (error: Error) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    };
    request.on('error', fail);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', fail);
      response.on('end', () => {
        signal.removeEventListener('abort', onAbort);
        resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) });
      });
    });
    request.end(exchange.body);
  });
}
