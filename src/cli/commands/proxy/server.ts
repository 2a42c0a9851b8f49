import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request as upstreamRequest, type Dispatcher } from 'undici';
import { ERROR_CATALOGUE } from '../../../contract/errors.js';
import { ulid } from '../../../contract/ids.js';
import { LIMITS } from '../../../contract/limits.js';
import { redactSecrets } from '../../../logging/redact.js';
import { listenOn } from '../../../server/listen.js';
import { serverTimeouts } from '../../../server/timeouts.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, TOO_DEEP_MESSAGE } from '../../../server/json-depth.js';
import { readRestOfBody } from '../../../server/drain.js';
import { ByteBudget } from './budget.js';
import { createGate, type Refusal } from './gate.js';
import { Recorder, recordBody, recordHeaders, type Exchange } from './record.js';
import { RetryWatch, retryKey } from './retry-watch.js';
import { checkRequest, checkResponse, redactViolation, type Violation } from './validate.js';

export interface ProxyOptions {
  /** The base address to forward to, with its path prefix: `https://api…/sandbox/v1`. */
  to: string;
  port: number;
  host: string;
  /** More names the proxy answers to besides its address, `localhost`, `127.0.0.1` and `[::1]`. */
  allowedHosts?: string[];
  /** Forward the emulator's control API (`/_emulator/…`); refused otherwise. */
  forwardControl?: boolean;
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

// spec: Limits — request body 5 MB (DESIGN: 5,000,000 bytes); larger ones are refused like the service does.
const MAX_BODY_BYTES = LIMITS.bodyBytes;
// Bodies held at once across all exchanges (requests read for the checks, response copies): five
// bodies of the largest size, or thousands of an ERP's usual few kilobytes.
const BUFFER_BUDGET_BYTES = 5 * MAX_BODY_BYTES;
// `expect: 100-continue` is answered here (node's server sends the 100) and the body is read whole
// before forwarding, so it is not passed on (undici refuses it).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', 'expect']);

interface LocalAnswer {
  status: number;
  requestId: string;
  body: string;
  /** Close the connection after answering: the request's body was not read. */
  close?: boolean;
}

function errorBody(status: number, code: string, message: string): LocalAnswer {
  const requestId = `req_${ulid(Date.now())}`;
  return { status, requestId, body: JSON.stringify({ error: { code, message, request_id: requestId } }) };
}

const refusalBody = (r: Refusal): LocalAnswer => ({ ...errorBody(r.status, r.code, r.message), close: true });

/**
 * The whole body, or 'too_large' past the cap. With a Content-Length it is copied into one buffer of
 * that size as it comes (no second copy to join chunks); a chunked body is joined at the end.
 */
function readBody(req: IncomingMessage, announced: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    // The client may have left while the request waited for its share of the budget.
    if (req.destroyed) return reject(new Error('client gone'));
    const whole = req.headers['content-length'] !== undefined ? Buffer.allocUnsafe(announced) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > MAX_BODY_BYTES) return; // already refused: the rest is read and dropped
      if (whole && size + chunk.length <= whole.length) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        resolve('too_large');
      }
    });
    req.on('end', () => resolve(whole && size === whole.length ? whole : Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => reject(new Error('client gone')));
  });
}

/** What a request's body may cost: its announced size, or the cap when it is sent in chunks. */
function announcedSize(req: IncomingMessage): number {
  const length = req.headers['content-length'];
  if (length !== undefined) return Math.min(Number(length) || 0, MAX_BODY_BYTES);
  return req.headers['transfer-encoding'] ? MAX_BODY_BYTES : 0;
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
  /** What is refused before a body is read (Host, control API, size). */
  gate: (req: IncomingMessage, pathname: string) => Refusal | undefined;
  budget: ByteBudget;
}

/** What came back for one request: from the upstream, or the proxy's own error answer. */
interface Answer {
  status: number;
  requestId: string | undefined;
  responseHeaders: Record<string, string | string[] | undefined>;
  responseBody: Buffer | undefined;
  /** Bytes of the shared budget the response copy holds. */
  keptBytes?: number;
}

/**
 * The validating, recording proxy: listens on `host:port` under the same path prefix as `to`, forwards
 * every request untouched (keep-alive to the upstream, responses streamed back as they come), and checks
 * each exchange against the contract on the side.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.to);
  const prefix = target.pathname.replace(/\/+$/, '');
  const ctx: ProxyContext = {
    options,
    target,
    prefix,
    agent: new Agent({ keepAliveTimeout: 30_000, connections: 64 }),
    recorder: options.record ? new Recorder(options.record) : undefined,
    watch: new RetryWatch(),
    gate: createGate({ host: options.host, allowedHosts: options.allowedHosts ?? [], forwardControl: options.forwardControl ?? false, prefix }),
    budget: new ByteBudget(BUFFER_BUDGET_BYTES),
  };
  // The emulator's deadlines: a stalled client is cut after 10 s (headers) or 30 s (whole request).
  const server = createServer(serverTimeouts(), (req, res) => {
    handle(ctx, req, res).catch(() => {
      // Never a crash: an unexpected failure is one 502 in the spec's error body.
      if (!res.headersSent && !res.destroyed) sendLocal(res, errorBody(502, 'upstream_unavailable', 'El proxy no pudo completar la solicitud.'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  const listening = await listenOn(server, options.port, options.host);
  return {
    url: `${listening.origin}${ctx.prefix}`,
    async close() {
      await listening.close();
      await ctx.agent.close();
      await ctx.recorder?.close();
    },
  };
}

/**
 * One exchange: refused at the gate, or read (within the shared budget), checked, forwarded, the
 * answer checked, printed and recorded.
 */
async function handle(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const raw = req.url ?? '/';
  // Parsed as a path (never as a URL of another host), dot segments resolved, percent-encoded ones
  // included: the path checked is the path forwarded.
  const url = new URL(`http://proxy.invalid${raw.startsWith('/') ? raw : `/${raw}`}`);
  const refusal = ctx.gate(req, url.pathname);
  if (refusal) {
    // Its body is never forwarded, yet read (within a bound) before the answer: a client still
    // writing it would otherwise meet a reset instead of the refusal.
    await readRestOfBody(req);
    report(ctx, req, { started, url, body: undefined, answer: local(res, refusalBody(refusal)), violations: [] });
    return;
  }
  const reserved = announcedSize(req);
  await ctx.budget.take(reserved);
  try {
    await exchange(ctx, req, res, started, url, reserved);
  } finally {
    ctx.budget.release(reserved);
  }
}

async function exchange(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse, started: number, url: URL, announced: number): Promise<void> {
  const method = req.method ?? 'GET';
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let body: Buffer | 'too_large';
  try {
    body = await readBody(req, announced);
  } catch {
    abort.abort();
    return; // The client went away mid-body: nothing to forward, nothing to answer.
  }
  if (body === 'too_large') {
    await readRestOfBody(req);
    report(ctx, req, { started, url, body: undefined, answer: local(res, refusalBody({ status: 413, code: 'payload_too_large', message: ERROR_CATALOGUE.payload_too_large.message })), violations: [] });
    return;
  }
  // Refused before anything parses it (the checks, the record): the emulator would refuse it too.
  if (nestedDeeperThan(body)) {
    const violation: Violation = { rule: 'malformed_json', spec: 'Errors — 400 malformed_json', message: `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.` };
    report(ctx, req, { started, url, body: undefined, answer: local(res, errorBody(400, 'malformed_json', TOO_DEEP_MESSAGE)), violations: [violation] });
    return;
  }
  const relative = url.pathname.slice(ctx.prefix.length) || '/';
  const idempotencyKey = header(req, 'idempotency-key');
  const checked = checkRequest({ method, path: relative, query: url.searchParams, idempotencyKey, contentType: header(req, 'content-type'), body });
  const key = retryKey(clientOf(req), method, url.pathname, idempotencyKey);
  const early = ctx.watch.onRequest(key);
  if (early) checked.violations.push(early);
  const answer = await forward(ctx, req, res, url, body, abort.signal);
  try {
    checked.violations.push(...checkResponse(checked.match, { status: answer.status, contentType: header(answer.responseHeaders, 'content-type'), body: answer.responseBody }));
    ctx.watch.onResponse(key, answer.status, header(answer.responseHeaders, 'retry-after'));
    report(ctx, req, { started, url, body, answer, violations: checked.violations });
  } finally {
    ctx.budget.release(answer.keptBytes ?? 0);
  }
}

/** Prints and records one finished exchange, secrets redacted. */
function report(ctx: ProxyContext, req: IncomingMessage, e: { started: number; url: URL; body: Buffer | undefined; answer: Answer; violations: Violation[] }): void {
  const method = req.method ?? 'GET';
  const durationMs = performance.now() - e.started;
  const violations = e.violations.map(redactViolation);
  const { answer, url } = e;
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
      body: recordBody(e.body, header(req, 'content-type')),
    },
    response: { status: answer.status, headers: recordHeaders(answer.responseHeaders), body: recordBody(answer.responseBody, header(answer.responseHeaders, 'content-type')) },
    violations,
  } satisfies Exchange);
}

function local(res: ServerResponse, e: LocalAnswer): Answer {
  return { status: e.status, requestId: e.requestId, responseHeaders: {}, responseBody: sendLocal(res, e) };
}

/** Sends the request upstream and streams the answer back, keeping a copy (within the budget) for the checks. */
async function forward(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer, signal: AbortSignal): Promise<Answer> {
  let upstream: Dispatcher.ResponseData;
  try {
    upstream = await upstreamRequest(new URL(`${ctx.target.origin}${url.pathname}${url.search}`), {
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
  const copy = await streamBack(upstream.body, res, ctx.budget);
  return {
    status: upstream.statusCode,
    requestId: header(upstream.headers, 'x-request-id'),
    responseHeaders: upstream.headers,
    responseBody: copy.body,
    keptBytes: copy.kept,
  };
}

/**
 * Writes the upstream body to the client as it comes (with backpressure) and keeps a copy for the
 * checks while the budget has room and the body is within the cap; otherwise no copy (the answer
 * is forwarded whole but not checked). `kept` bytes of the budget are the caller's to release.
 */
async function streamBack(body: AsyncIterable<unknown>, res: ServerResponse, budget: ByteBudget): Promise<{ body: Buffer | undefined; kept: number }> {
  let chunks: Buffer[] | undefined = [];
  let kept = 0;
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      if (chunks && (kept + buf.length > MAX_BODY_BYTES || !budget.tryTake(buf.length))) {
        budget.release(kept);
        kept = 0;
        chunks = undefined;
      } else if (chunks) {
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
  return { body: chunks && Buffer.concat(chunks), kept };
}

type HeaderBag = Record<string, string | string[] | undefined>;

function header(from: IncomingMessage | HeaderBag, name: string): string | undefined {
  const bag: HeaderBag = from instanceof IncomingMessage ? from.headers : from;
  const value = bag[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendLocal(res: ServerResponse, e: LocalAnswer): Buffer {
  const buf = Buffer.from(e.body);
  if (!res.headersSent && !res.destroyed) {
    res.writeHead(e.status, {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': e.requestId,
      'content-length': buf.length,
      ...(e.close ? { connection: 'close' } : {}),
    });
    res.end(buf);
  }
  return buf;
}
