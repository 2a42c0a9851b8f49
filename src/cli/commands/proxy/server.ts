import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request as upstreamRequest, type Dispatcher } from 'undici';
import { ulid } from '../../../contract/ids.js';
import { redactSecrets } from '../../../logging/redact.js';
import { Recorder, recordBody, recordHeaders, type Exchange } from './record.js';
import { RetryWatch, retryKey } from './retry-watch.js';
import { checkRequest, checkResponse, type Violation } from './validate.js';

export interface ProxyOptions {
  /** The base address to forward to, with its path prefix: `https://api…/sandbox/v1`. */
  to: string;
  port: number;
  host: string;
  /** JSONL file that receives every exchange, secrets redacted. */
  record?: string;
  /** Upstream answer timeout (headers and body). */
  timeoutMs: number;
  /** Called once per finished exchange (for printing). */
  onExchange(summary: ExchangeSummary): void;
}

export interface ExchangeSummary {
  requestId: string | undefined;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  violations: Violation[];
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

// Bodies kept in memory for validation and recording; larger ones are refused like the service does.
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length']);

function errorBody(status: number, code: string, message: string): { status: number; requestId: string; body: string } {
  const requestId = `req_${ulid(Date.now())}`;
  return { status, requestId, body: JSON.stringify({ error: { code, message, request_id: requestId } }) };
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve('too_large');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('client aborted')));
  });
}

function forwardHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Who is retrying: the client address and a digest of its credential (never the credential itself). */
function clientOf(req: IncomingMessage): string {
  const auth = req.headers.authorization ?? '';
  return `${req.socket.remoteAddress} ${createHash('sha256').update(auth).digest('hex').slice(0, 16)}`;
}

/**
 * The validating, recording proxy: listens on `host:port` under the same path prefix as `to`, forwards
 * every request untouched (keep-alive to the upstream, responses streamed back as they come), and checks
 * each exchange against the contract on the side.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.to);
  const prefix = target.pathname.replace(/\/+$/, '');
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const recorder = options.record ? new Recorder(options.record) : undefined;
  const watch = new RetryWatch();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    const method = req.method ?? 'GET';
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    let body: Buffer | 'too_large';
    try {
      body = await readBody(req);
    } catch {
      abort.abort();
      return; // The client went away mid-body: nothing to forward, nothing to answer.
    }
    const relative = url.pathname.startsWith(`${prefix}/`) || url.pathname === prefix ? url.pathname.slice(prefix.length) || '/' : undefined;
    const idempotencyKey = header(req, 'idempotency-key');
    const checked =
      relative === undefined || body === 'too_large'
        ? { match: undefined, violations: [] as Violation[] }
        : checkRequest({ method, path: relative, query: url.searchParams, idempotencyKey, contentType: header(req, 'content-type'), body });
    const key = retryKey(clientOf(req), method, url.pathname, idempotencyKey);
    const early = watch.onRequest(key);
    if (early) checked.violations.push(early);

    let status: number;
    let requestId: string | undefined;
    let responseHeaders: Record<string, string | string[] | undefined> = {};
    let responseBody: Buffer | undefined;
    if (relative === undefined) {
      const e = errorBody(404, 'not_found', `El proxy solo reenvía rutas bajo ${prefix || '/'}.`);
      ({ status, requestId } = e);
      responseBody = sendLocal(res, e);
    } else if (body === 'too_large') {
      const e = errorBody(413, 'payload_too_large', 'El cuerpo de la solicitud supera el tamaño permitido.');
      ({ status, requestId } = e);
      responseBody = sendLocal(res, e);
    } else {
      const result = await forward(req, res, body, abort.signal);
      ({ status, requestId, responseHeaders, responseBody } = result);
      checked.violations.push(...checkResponse(checked.match, { status, contentType: header(responseHeaders, 'content-type'), body: responseBody }));
      watch.onResponse(key, status, header(responseHeaders, 'retry-after'));
    }
    const durationMs = performance.now() - started;
    const summary: ExchangeSummary = { requestId, method, path: redactSecrets(url.pathname), status, durationMs, violations: checked.violations };
    options.onExchange(summary);
    if (recorder) {
      const exchange: Exchange = {
        format: 'merchant-kit.exchange',
        version: 1,
        seq: recorder.nextSeq(),
        at: new Date().toISOString(),
        duration_ms: Math.round(durationMs * 10) / 10,
        request: {
          method,
          path: redactSecrets(`${url.pathname}${url.search}`),
          headers: recordHeaders(req.headers),
          body: body === 'too_large' ? null : recordBody(body, header(req, 'content-type')),
        },
        response: { status, headers: recordHeaders(responseHeaders), body: recordBody(responseBody, header(responseHeaders, 'content-type')) },
        violations: checked.violations,
      };
      recorder.write(exchange);
    }
  }

  async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, signal: AbortSignal) {
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await upstreamRequest(new URL(`${target.origin}${req.url}`), {
        method: req.method as Dispatcher.HttpMethod,
        headers: forwardHeaders(req),
        body: body.length > 0 ? body : undefined,
        dispatcher: agent,
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
    } catch (error) {
      const timedOut = (error as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
      const e = timedOut
        ? errorBody(504, 'upstream_timeout', 'El servicio no respondió a tiempo.')
        : errorBody(502, 'upstream_unavailable', 'No se pudo conectar con el servicio.');
      return { status: e.status, requestId: e.requestId, responseHeaders: {}, responseBody: sendLocal(res, e) };
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    if (!res.destroyed) res.writeHead(upstream.statusCode, headers);
    const chunks: Buffer[] = [];
    let kept = 0;
    try {
      for await (const chunk of upstream.body) {
        const buf = chunk as Buffer;
        if (kept < MAX_BODY_BYTES) {
          chunks.push(buf);
          kept += buf.length;
        }
        if (!res.destroyed && !res.write(buf)) await new Promise<void>((r) => (res.destroyed ? r() : res.once('drain', r)));
      }
      res.end();
    } catch {
      // The upstream broke off mid-body or the client left: close what is left, keep what came.
      res.destroy();
    }
    return {
      status: upstream.statusCode,
      requestId: header(upstream.headers, 'x-request-id'),
      responseHeaders: upstream.headers,
      responseBody: Buffer.concat(chunks),
    };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Never a crash: an unexpected failure is one 502 in the spec's error body.
      if (!res.headersSent && !res.destroyed) sendLocal(res, errorBody(502, 'upstream_unavailable', 'El proxy no pudo completar la solicitud.'));
      else res.destroy();
      void error;
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${prefix}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await agent.close();
      await recorder?.close();
    },
  };
}

type HeaderBag = Record<string, string | string[] | undefined>;

function header(from: IncomingMessage | HeaderBag, name: string): string | undefined {
  const bag: HeaderBag = from instanceof IncomingMessage ? from.headers : from;
  const value = bag[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendLocal(res: ServerResponse, e: { status: number; requestId: string; body: string }): Buffer {
  const buf = Buffer.from(e.body);
  if (!res.headersSent && !res.destroyed) {
    res.writeHead(e.status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': e.requestId, 'content-length': buf.length });
    res.end(buf);
  }
  return buf;
}
