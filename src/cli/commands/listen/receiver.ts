import http from 'node:http';
import { verify } from '../../../webhooks/sign.js';
import { redactSecrets } from '../../../logging/redact.js';
import { ExitError } from '../../errors.js';
import { MAX_EVENT_DEPTH, nestedDeeperThan } from './depth.js';
import type { Dispatcher } from './dispatch.js';
import type { ListenRecord } from './output.js';

// spec: Limits, request body 5 MB (DESIGN: 5,000,000 bytes).
const MAX_BODY_BYTES = 5_000_000;

export interface ReceiverOptions {
  /** Null until `--configure` obtained it: requests meanwhile get 503 (the service retries). */
  secret: () => string | null;
  path: string;
  dispatcher: Dispatcher;
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
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
}

/**
 * The signed body as an event object, or why not. The depth is checked on the text first, in one
 * loop: a body nested thousands of levels would overflow the stack of anything recursive later
 * (printing it with `JSON.stringify`, the app's own parser), so it is refused with 400.
 */
export function parseEvent(raw: Buffer): { event: Record<string, unknown> } | { reason: 'invalid_json' | 'too_deeply_nested' } {
  const text = raw.toString('utf8');
  if (nestedDeeperThan(text, MAX_EVENT_DEPTH)) return { reason: 'too_deeply_nested' };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { event: value as Record<string, unknown> };
  } catch {
    // not JSON
  }
  return { reason: 'invalid_json' };
}

/**
 * The request handler: verify with the shared module, refuse what is not an event, and hand the
 * event to the dispatcher (duplicates, own changes, printing, forwarding). Nothing a client sends
 * can make it answer 500: an unexpected failure is reported and answered 500 without stopping the
 * listener.
 */
export function createReceiver(options: ReceiverOptions): http.RequestListener {
  return (req, res) =>
    void handle(req, res).catch((error: unknown) => {
      // An ExitError (the state file cannot be written) stops the listener and is reported once, by main.
      if (!(error instanceof ExitError)) {
        process.stderr.write(`Internal error while handling a delivery: ${redactSecrets((error as Error).message ?? String(error))}\n`);
      }
      answer(res, 500, 'internal error');
    });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://listener');
    if (url.pathname !== options.path) return answer(res, 404, 'not found');
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const receivedAt = new Date().toISOString();
    const eventIdHeader = header(req, 'x-service-event-id') ?? null;
    const deliveryId = header(req, 'x-service-delivery-id') ?? null;
    const reject = (status: number, reason: string) => {
      options.report({ kind: 'rejected', received_at: receivedAt, status, reason, event_id: eventIdHeader, delivery_id: deliveryId });
      answer(res, status, reason);
    };
    const raw = await readRaw(req);
    if (raw === null) return reject(413, 'payload_too_large');
    const secret = options.secret();
    if (secret === null) return reject(503, 'not_ready');
    const result = verify({ signature: header(req, 'x-service-signature'), timestamp: header(req, 'x-service-timestamp'), rawBody: raw, secrets: secret });
    if (!result.ok) return reject(401, result.reason);
    const parsed = parseEvent(raw);
    if ('reason' in parsed) return reject(400, parsed.reason);
    const event = parsed.event;
    const eventId = typeof event.id === 'string' ? event.id : eventIdHeader;
    if (!eventId) return reject(400, 'missing_event_id');
    const type = typeof event.type === 'string' ? event.type : (header(req, 'x-service-event-type') ?? 'unknown');
    const outcome = await options.dispatcher.webhook({ event, eventId, type, deliveryId, receivedAt, raw, headers: req.headers });
    answer(res, outcome.status, outcome.body);
  }
}
