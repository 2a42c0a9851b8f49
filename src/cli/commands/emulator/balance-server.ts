import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { ulid } from '../../../contract/ids.js';
import { listenOn } from '../../../server/listen.js';
import { serverTimeouts } from '../../../server/timeouts.js';
import { UpstreamPool, upstreamOf, type Upstream } from './balance-upstreams.js';

export interface BalancerOptions {
  /** The emulators' origins (`http://127.0.0.1:4011`), taken in turn. */
  to: string[];
  port: number;
  host: string;
  /** How long an emulator that refused a connection sits out (ms). */
  downMs?: number;
  /** How long a connection may take to open before the emulator counts as down (ms). */
  connectTimeoutMs?: number;
  /** What happened, for the command's log: never a header, a query string or a body. */
  onEvent?(event: BalancerEvent): void;
}

export type BalancerEvent =
  | { kind: 'down'; upstream: string; cause: string }
  | { kind: 'up'; upstream: string }
  | { kind: 'request'; method: string; path: string; upstream: string | null; status: number; durationMs: number };

export interface RunningBalancer {
  url: string;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5_000;

// Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's own, not the message's. `expect` is answered
// by this server (node sends the 100 Continue), so the emulator is not asked again.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'expect']);

/** Failures that happen before a connection exists: nothing reached that emulator. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNECT_TIMEOUT']);

// What the emulator judges a request by (its Host check, its cross-site check) and how the body is
// framed: a client naming them in Connection must not take them away from the emulator.
const NEVER_DROPPED = new Set(['host', 'origin', 'sec-fetch-site', 'content-length', 'content-type']);

/**
 * The headers as forwarded: Host kept as the client sent it, hop-by-hop ones dropped, and the
 * client's address appended to X-Forwarded-For as every reverse proxy does (the emulators see the
 * balancer's address as the peer).
 */
function forwardHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const headers = req.headers;
  const out: OutgoingHttpHeaders = {};
  // Headers named by Connection are hop-by-hop too (RFC 9110 §7.6.1), except those the emulator needs.
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((h) => h.trim()));
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && (!named.has(name) || NEVER_DROPPED.has(name))) out[name] = value;
  }
  const client = req.socket.remoteAddress;
  if (client) out['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${client}` : client;
  // A body of unknown length is passed on in chunks as it comes.
  if (headers['transfer-encoding'] !== undefined && headers['content-length'] === undefined) out['transfer-encoding'] = 'chunked';
  return out;
}

/** True when the request carries a body (a length above 0, or chunks). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * True when the request may be sent again after a kept-alive connection failed under it: it has no
 * body, and it is a read (GET, HEAD) or carries an Idempotency-Key (the API answers one key once).
 * The failed process may have received it and acted before the reset (a `reset`, a `rotate-secret`):
 * any other request is never sent twice.
 */
function safeToResend(req: IncomingMessage): boolean {
  if (hasBody(req)) return false;
  return req.method === 'GET' || req.method === 'HEAD' || req.headers['idempotency-key'] !== undefined;
}

/** The balancer's own answer when no emulator answered: 502 in the spec's error body. */
function sendUnavailable(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return void res.destroy();
  const requestId = `req_${ulid(Date.now())}`;
  const body = JSON.stringify({ error: { code: 'upstream_unavailable', message: 'Ningún proceso del emulador respondió.', request_id: requestId } });
  res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId });
  res.end(body);
}

/** How one try ended: answered (the response is on its way), refused before connecting, or failed. */
type Attempt = { outcome: 'answered'; status: number } | { outcome: 'not_connected'; cause: string } | { outcome: 'failed'; cause: string };

/**
 * One try of a request on one emulator. The client's body is piped only once the connection is open,
 * so an emulator that refuses it has received nothing and the next one may be tried. The answer is
 * streamed back as it comes (Server-Sent Events, large bodies), with backpressure both ways.
 */
function attempt(upstream: Upstream, req: IncomingMessage, res: ServerResponse, connectTimeoutMs: number): Promise<Attempt> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (a: Attempt) => {
      if (!settled) resolve(a);
      settled = true;
    };
    const out = httpRequest({
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: forwardHeaders(req),
      agent: upstream.agent,
    });
    let connected = false;
    // The client left: the emulator's work for it stops too (an SSE stream ends there).
    const clientGone = () => {
      if (!res.writableFinished) out.destroy();
    };
    res.once('close', clientGone);
    out.once('socket', (socket) => {
      const go = () => {
        connected = true;
        req.pipe(out);
      };
      if (!socket.connecting) return go();
      const timer = setTimeout(() => out.destroy(Object.assign(new Error('connect timeout'), { code: 'ECONNECT_TIMEOUT' })), connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        go();
      });
      socket.once('close', () => clearTimeout(timer));
    });
    out.once('response', (answer) => {
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      // An emulator that breaks off mid-answer: the client must see a cut, not a short body.
      answer.once('error', () => res.destroy());
      answer.once('aborted', () => res.destroy());
      if (res.destroyed) {
        answer.resume();
      } else {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        res.flushHeaders();
        answer.pipe(res);
      }
      settle({ outcome: 'answered', status: answer.statusCode ?? 502 });
    });
    out.on('error', (error: NodeJS.ErrnoException) => {
      const cause = error.code ?? error.message;
      if (settled) return void res.destroy();
      res.off('close', clientGone);
      req.unpipe(out);
      // A kept-alive connection the emulator closed while idle, or reset under the request: sent again
      // only when that cannot apply it twice.
      const staleSocket = out.reusedSocket && safeToResend(req) && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      settle(!connected && NOT_CONNECTED.has(cause) ? { outcome: 'not_connected', cause } : staleSocket ? { outcome: 'not_connected', cause: 'stale' } : { outcome: 'failed', cause });
    });
  });
}

/** One request: each emulator in this request's order until one answers; 502 when none does. */
async function handle(pool: UpstreamPool, options: BalancerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  let answeredBy: Upstream | null = null;
  let status = 502;
  for (const upstream of pool.order()) {
    if (res.destroyed) return;
    const result = await attempt(upstream, req, res, connectTimeoutMs);
    if (result.outcome === 'answered') {
      if (pool.markUp(upstream)) options.onEvent?.({ kind: 'up', upstream: upstream.origin });
      answeredBy = upstream;
      status = result.status;
      break;
    }
    if (result.outcome === 'failed') break; // the body went (some of it) to that emulator: never sent twice
    if (result.cause !== 'stale' && pool.markDown(upstream)) options.onEvent?.({ kind: 'down', upstream: upstream.origin, cause: result.cause });
  }
  if (!answeredBy) sendUnavailable(res);
  const path = (req.url ?? '/').split('?')[0]!;
  options.onEvent?.({ kind: 'request', method: req.method ?? 'GET', path, upstream: answeredBy?.origin ?? null, status, durationMs: performance.now() - started });
}

/**
 * `merchant-kit emulator balance`: a round-robin HTTP load balancer for the processes of one team
 * sandbox (docs/team-sandbox.md). Plain forwarding: nothing is read, buffered or rewritten but the
 * hop-by-hop headers; the emulators answer every request the same way, so no request needs a
 * particular process (no sticky sessions).
 */
export async function startBalancer(options: BalancerOptions): Promise<RunningBalancer> {
  const pool = new UpstreamPool(options.to.map(upstreamOf), options.downMs);
  // The emulator's deadlines for a client's request (10 s for the headers, 30 s in all).
  const server = createServer(serverTimeouts(), (req, res) => {
    handle(pool, options, req, res).catch(() => sendUnavailable(res));
  });
  // A client's kept-alive connection may stay idle 30 s, as with `merchant-kit proxy`.
  server.keepAliveTimeout = 30_000;
  const listening = await listenOn(server, options.port, options.host);
  return {
    url: listening.origin,
    async close() {
      await listening.close();
      pool.close();
    },
  };
}
