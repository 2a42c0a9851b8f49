import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request as upstreamRequest, type Dispatcher } from 'undici';
import { ulid } from '../../../contract/ids.js';
import { redactSecrets } from '../../../logging/redact.js';
import { Recorder, recordBody, recordHeaders, type Exchange } from './record.js';
import { RetryWatch, retryKey } from './retry-watch.js';
import { checkRequest, checkResponse, redactViolation, type Violation } from './validate.js';

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
// `expect: 100-continue` is answered here (node's server sends the 100) and the body is read whole
// before forwarding, so it is not passed on (undici refuses it).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', 'expect']);

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

/** What every exchange of one running proxy shares. */
interface ProxyContext {
  options: ProxyOptions;
  target: URL;
  /** The path prefix of `to`, without a trailing slash (`/sandbox/v1`). */
  prefix: string;
  agent: Agent;
  recorder: Recorder | undefined;
  watch: RetryWatch;
}

/** What came back for one request: from the upstream, or the proxy's own error answer. */
interface Answer {
  status: number;
  requestId: string | undefined;
  responseHeaders: Record<string, string | string[] | undefined>;
  responseBody: Buffer | undefined;
}

/**
 * The validating, recording proxy: listens on `host:port` under the same path prefix as `to`, forwards
 * every request untouched (keep-alive to the upstream, responses streamed back as they come), and checks
 * each exchange against the contract on the side.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.to);
  const ctx: ProxyContext = {
    options,
    target,
    prefix: target.pathname.replace(/\/+$/, ''),
    agent: new Agent({ keepAliveTimeout: 30_000, connections: 64 }),
    recorder: options.record ? new Recorder(options.record) : undefined,
    watch: new RetryWatch(),
  };
  const server = createServer((req, res) => {
    handle(ctx, req, res).catch(() => {
      // Never a crash: an unexpected failure is one 502 in the spec's error body.
      if (!res.headersSent && !res.destroyed) sendLocal(res, errorBody(502, 'upstream_unavailable', 'El proxy no pudo completar la solicitud.'));
      else res.destroy();
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
    url: `http://${host}:${address.port}${ctx.prefix}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await ctx.agent.close();
      await ctx.recorder?.close();
    },
  };
}

/** One exchange: read the body, check the request, forward it (or answer locally), check the answer, print and record. */
async function handle(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
  const { prefix } = ctx;
  const relative = url.pathname.startsWith(`${prefix}/`) || url.pathname === prefix ? url.pathname.slice(prefix.length) || '/' : undefined;
  const idempotencyKey = header(req, 'idempotency-key');
  const checked =
    relative === undefined || body === 'too_large'
      ? { match: undefined, violations: [] as Violation[] }
      : checkRequest({ method, path: relative, query: url.searchParams, idempotencyKey, contentType: header(req, 'content-type'), body });
  const key = retryKey(clientOf(req), method, url.pathname, idempotencyKey);
  const early = ctx.watch.onRequest(key);
  if (early) checked.violations.push(early);

  let answer: Answer;
  if (relative === undefined) answer = local(res, errorBody(404, 'not_found', `El proxy solo reenvía rutas bajo ${prefix || '/'}.`));
  else if (body === 'too_large') answer = local(res, errorBody(413, 'payload_too_large', 'El cuerpo de la solicitud supera el tamaño permitido.'));
  else {
    answer = await forward(ctx, req, res, body, abort.signal);
    checked.violations.push(...checkResponse(checked.match, { status: answer.status, contentType: header(answer.responseHeaders, 'content-type'), body: answer.responseBody }));
    ctx.watch.onResponse(key, answer.status, header(answer.responseHeaders, 'retry-after'));
  }
  const durationMs = performance.now() - started;
  const violations = checked.violations.map(redactViolation);
  ctx.options.onExchange({ requestId: answer.requestId, method, path: redactSecrets(url.pathname), status: answer.status, durationMs, violations });
  ctx.recorder?.write({
    format: 'merchant-kit.exchange',
    version: 1,
    seq: ctx.recorder.nextSeq(),
    at: new Date().toISOString(),
    duration_ms: Math.round(durationMs * 10) / 10,
    request: {
      method,
      path: redactSecrets(`${url.pathname}${url.search}`),
      headers: recordHeaders(req.headers),
      body: body === 'too_large' ? null : recordBody(body, header(req, 'content-type')),
    },
    response: { status: answer.status, headers: recordHeaders(answer.responseHeaders), body: recordBody(answer.responseBody, header(answer.responseHeaders, 'content-type')) },
    violations,
  } satisfies Exchange);
}

function local(res: ServerResponse, e: { status: number; requestId: string; body: string }): Answer {
  return { status: e.status, requestId: e.requestId, responseHeaders: {}, responseBody: sendLocal(res, e) };
}

/** Sends the request upstream and streams the answer back, keeping a copy (up to the cap) for the checks. */
async function forward(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse, body: Buffer, signal: AbortSignal): Promise<Answer> {
  let upstream: Dispatcher.ResponseData;
  try {
    upstream = await upstreamRequest(new URL(`${ctx.target.origin}${req.url}`), {
      method: req.method as Dispatcher.HttpMethod,
      headers: forwardHeaders(req),
      body: body.length > 0 ? body : undefined,
      dispatcher: ctx.agent,
      signal,
      headersTimeout: ctx.options.timeoutMs,
      bodyTimeout: ctx.options.timeoutMs,
    });
  } catch (error) {
    const timedOut = (error as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
    return local(res, timedOut
      ? errorBody(504, 'upstream_timeout', 'El servicio no respondió a tiempo.')
      : errorBody(502, 'upstream_unavailable', 'No se pudo conectar con el servicio.'));
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  if (!res.destroyed) res.writeHead(upstream.statusCode, headers);
  return {
    status: upstream.statusCode,
    requestId: header(upstream.headers, 'x-request-id'),
    responseHeaders: upstream.headers,
    responseBody: await streamBack(upstream.body, res),
  };
}

/** Writes the upstream body to the client as it comes (with backpressure) and returns what was kept of it. */
async function streamBack(body: AsyncIterable<unknown>, res: ServerResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    for await (const chunk of body) {
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
  return Buffer.concat(chunks);
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
