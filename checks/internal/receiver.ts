import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { verify } from '../../src/webhooks/sign.js';

/** An event as the receiver accepted it. */
export interface ReceivedEvent {
  id: string;
  type: string;
  /** The order of an order event (its `data.order`). */
  order: { id: string; updated_at: string; status: string; [k: string]: unknown } | null;
  raw: string;
  at: number;
}

export interface ReceiverOptions {
  /** Verify signatures and timestamps (spec: Webhook delivery, receiver rules 1–3). Default true. */
  verify?: boolean;
  /** Called once per new event (duplicates by id are answered 2xx and dropped: rule 4). */
  onEvent?: (event: ReceivedEvent) => void;
  /** Keep only the newest version of each order (default true); false hands every version on (a broken receiver, for tests). */
  keepNewest?: boolean;
  /** Status for an accepted delivery (default 200). */
  status?: () => number;
}

/**
 * The reference webhook receiver: real HTTP on 127.0.0.1, port 0. Verifies the signature over the
 * raw body in constant time with any of its secrets, refuses timestamps more than 300 s away, drops
 * duplicates by event id and keeps the newest version of each order by `updated_at`.
 */
export class ReferenceReceiver {
  url = '';
  secrets: string[] = [];
  readonly events: ReceivedEvent[] = [];
  /** Every delivery answered, with its status (accepted, duplicate or refused). */
  readonly answers: { eventId: string | null; status: number; reason: string }[] = [];
  /** The newest version of each order seen. */
  readonly orders = new Map<string, NonNullable<ReceivedEvent['order']>>();
  private readonly seen = new Set<string>();
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<() => void>();
  private readonly server: http.Server;

  constructor(private readonly options: ReceiverOptions = {}) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { status, reason, eventId } = this.handle(req.headers, Buffer.concat(chunks));
        this.answers.push({ eventId, status, reason });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(reason);
        for (const wake of [...this.waiters]) wake();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
    return this;
  }

  private handle(headers: http.IncomingHttpHeaders, raw: Buffer): { status: number; reason: string; eventId: string | null } {
    const eventId = typeof headers['x-service-event-id'] === 'string' ? headers['x-service-event-id'] : null;
    if (this.options.verify !== false) {
      const result = verify({
        signature: headers['x-service-signature'] as string | undefined,
        timestamp: headers['x-service-timestamp'] as string | undefined,
        rawBody: raw,
        secrets: this.secrets,
      });
      if (!result.ok) return { status: 400, reason: result.reason, eventId };
    }
    const text = raw.toString('utf8');
    let event: { id?: unknown; type?: unknown; data?: { order?: ReceivedEvent['order'] } };
    try {
      event = JSON.parse(text);
    } catch {
      return { status: 400, reason: 'malformed_json', eventId };
    }
    const id = typeof event.id === 'string' ? event.id : (eventId ?? '');
    if (this.seen.has(id)) return { status: 200, reason: 'duplicate', eventId: id };
    this.seen.add(id);
    const order = event.data?.order ?? null;
    const received: ReceivedEvent = { id, type: String(event.type), order, raw: text, at: Date.now() };
    this.events.push(received);
    // spec: Events — compare data.order.updated_at with what is held and drop the older version.
    const held = order ? this.orders.get(order.id) : undefined;
    const newer = order !== null && (this.options.keepNewest === false || !held || Date.parse(order.updated_at) > Date.parse(held.updated_at));
    if (order && newer) this.orders.set(order.id, order);
    if (newer || !order) this.options.onEvent?.(received);
    return { status: this.options.status?.() ?? 200, reason: newer || !order ? 'accepted' : 'older_version_dropped', eventId: id };
  }

  /** Resolves when `test()` holds, or with false after `timeoutMs`. */
  async waitUntil(test: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() >= until || signal?.aborted) return false;
      await new Promise<void>((resolve) => {
        const wake = () => (clearTimeout(timer), this.waiters.delete(wake), resolve());
        const timer = setTimeout(wake, Math.min(100, Math.max(1, until - Date.now())));
        this.waiters.add(wake);
      });
    }
    return true;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
