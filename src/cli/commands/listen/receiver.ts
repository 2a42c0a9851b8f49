import http from 'node:http';
import { verify } from '../../../webhooks/sign.js';
import { forward, forwardedHeaders } from './forward.js';
import type { ListenRecord } from './output.js';

// spec: Limits, request body 5 MB.
const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface ReceiverOptions {
  /** Null until `--configure` obtained it: requests meanwhile get 503 (the service retries). */
  secret: () => string | null;
  /** Event ids already handled (shared with `--backfill`). */
  seen: Set<string>;
  path: string;
  forwardTo?: URL;
  report: (record: ListenRecord) => void;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The raw bytes as received (verification must never see re-serialised JSON), or null past 5 MB. */
function readRaw(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
}

function parseEvent(raw: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The request handler: verify with the shared module, drop duplicates by event id, print, and
 * optionally forward. An event id counts as seen only once it was accepted (and, when forwarding,
 * once the app answered 2xx), so a failed delivery that the service retries is handled again.
 */
export function createReceiver(options: ReceiverOptions): http.RequestListener {
  const seen = options.seen;
  return (req, res) => void handle(req, res).catch(() => answer(res, 500, 'error interno'));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://listener');
    if (url.pathname !== options.path) return answer(res, 404, 'no encontrado');
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const received_at = new Date().toISOString();
    const eventIdHeader = header(req, 'x-service-event-id') ?? null;
    const delivery_id = header(req, 'x-service-delivery-id') ?? null;
    const reject = (status: number, reason: string) => {
      options.report({ kind: 'rejected', received_at, status, reason, event_id: eventIdHeader, delivery_id });
      answer(res, status, reason);
    };
    const raw = await readRaw(req);
    if (raw === null) return reject(413, 'payload_too_large');
    const secret = options.secret();
    if (secret === null) return reject(503, 'not_ready');
    const result = verify({ signature: header(req, 'x-service-signature'), timestamp: header(req, 'x-service-timestamp'), rawBody: raw, secrets: secret });
    if (!result.ok) return reject(401, result.reason);
    const event = parseEvent(raw);
    if (!event) return reject(400, 'invalid_json');
    const event_id = typeof event.id === 'string' ? event.id : eventIdHeader;
    if (!event_id) return reject(400, 'missing_event_id');
    const type = typeof event.type === 'string' ? event.type : (header(req, 'x-service-event-type') ?? 'desconocido');
    const base = { kind: 'event' as const, received_at, event_id, delivery_id, type, event };
    if (seen.has(event_id)) {
      options.report({ ...base, duplicate: true });
      return answer(res, 200, 'duplicate');
    }
    if (!options.forwardTo) {
      seen.add(event_id);
      options.report({ ...base, duplicate: false });
      return answer(res, 200, 'ok');
    }
    const forwarded = await forward(options.forwardTo, forwardedHeaders(req.headers), raw);
    if (!forwarded.ok) {
      options.report({ kind: 'forward_failed', received_at, event_id, error: forwarded.error });
      return answer(res, 502, 'reenvío fallido');
    }
    if (forwarded.status >= 200 && forwarded.status < 300) seen.add(event_id);
    options.report({ ...base, duplicate: false, forwarded_status: forwarded.status });
    answer(res, forwarded.status, forwarded.body);
  }
}
