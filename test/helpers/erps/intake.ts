import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { verify } from '../../../src/webhooks/sign.js';
import type { Api } from './api.js';

// How the zoo's ERPs take events in: a webhook receiver, a feed poller, or both, feeding one inbox
// that keeps the spec's receiver rules 4 and Events (duplicates by id, the newer order version).

export interface ZooOrder {
  id: string;
  number: number;
  status: string;
  updated_at: string;
  fulfillment_type: 'delivery' | 'pickup';
  notes: string;
  items: { product: { external_id: string | null } }[];
  integration: { ack_status: string };
  status_history: { status: string; by: string }[];
}

export interface ZooEvent {
  id: string;
  type: string;
  data: { order?: ZooOrder; previous_status?: string };
}

/**
 * Event ids already taken and the newest version of each order; `take` hands a new, newer order
 * version to `onOrder` (one chain per order, in arrival order) and drops duplicates and older versions.
 */
export class Inbox {
  readonly orders = new Map<string, ZooOrder>();
  private readonly seen = new Set<string>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly onOrder: (order: ZooOrder, event: ZooEvent) => Promise<void>,
    private readonly errors: string[],
    /** Broken on purpose: take every version as the newest. */
    private readonly keepNewest = true,
  ) {}

  take(event: ZooEvent): void {
    if (this.seen.has(event.id)) return;
    this.seen.add(event.id);
    const order = event.data?.order;
    if (!order) return;
    const held = this.orders.get(order.id);
    if (this.keepNewest && held && Date.parse(order.updated_at) <= Date.parse(held.updated_at)) return;
    this.orders.set(order.id, order);
    this.run(order.id, () => this.onOrder(order, event));
  }

  /** What an answer of the API says about an order is news too, when newer. */
  remember(order: ZooOrder | undefined): void {
    if (!order?.id) return;
    const held = this.orders.get(order.id);
    if (!held || Date.parse(order.updated_at) > Date.parse(held.updated_at)) this.orders.set(order.id, order);
  }

  /** Runs `work` after the order's earlier work. */
  run(orderId: string, work: () => Promise<void>): void {
    const previous = this.chains.get(orderId) ?? Promise.resolve();
    this.chains.set(orderId, previous.then(work).catch((e: unknown) => void this.errors.push(`${orderId}: ${String(e)}`)));
  }

  /**
   * Resolves once the order came in and the work on it so far is done (a person who acts only after
   * the ERP's own automation: `Variant.personAfterErp`), or once `stopped()` says to give up.
   */
  async handled(orderId: string, stopped: () => boolean): Promise<void> {
    while (!this.chains.has(orderId) && !stopped()) await new Promise((r) => setTimeout(r, 20));
    await this.chains.get(orderId);
  }

  async idle(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
  }
}

export interface ReceiverOptions {
  /** Verify signatures and timestamps (receiver rules 1–3); false is broken. */
  verify?: boolean;
  /** The status of an accepted delivery (a broken receiver answers 500 after doing the work). */
  status?: number;
  /** Answers after this long (a slow receiver; under the 10 s limit). */
  answerAfterMs?: number;
  /** Hands the event to the inbox this long after answering (a queue). */
  queueMs?: number;
}

export interface WebhookReceiver {
  url: string;
  secrets: string[];
  /** Stops answering (connections refused) until `listen()` again on the same port. */
  stop(): Promise<void>;
  listen(): Promise<void>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that verifies over the raw bytes, answers, and hands events on. */
export async function startReceiver(inbox: Inbox, options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  let port = 0;
  let server: http.Server | null = null;
  const receiver: WebhookReceiver = {
    url: '',
    secrets: [],
    async listen() {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          const checked = options.verify === false ? { ok: true } : verify({ signature: req.headers['x-service-signature'] as string, timestamp: req.headers['x-service-timestamp'] as string, rawBody: raw, secrets: receiver.secrets });
          let event: ZooEvent | null = null;
          try {
            event = JSON.parse(raw.toString('utf8')) as ZooEvent;
          } catch {
            event = null;
          }
          const answer = () => res.writeHead(checked.ok && event ? (options.status ?? 200) : 400).end();
          if (!checked.ok || !event) return void answer();
          const accepted = event;
          setTimeout(() => {
            answer();
            if (options.queueMs) setTimeout(() => inbox.take(accepted), options.queueMs);
            else inbox.take(accepted);
          }, options.answerAfterMs ?? 0);
        });
      });
      server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
      await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}/webhook`;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      server = null;
    },
    close: () => receiver.stop(),
  };
  await receiver.listen();
  return receiver;
}

export interface FeedPoller {
  /** Reads the feed to its end now (what a reconciliation does). */
  readNow(): Promise<void>;
  stop(): void;
}

/**
 * Reads GET /events from its cursor every `everyMs()` (again at once while `has_more`), handing each
 * event to the inbox. `everyMs` is drawn again for each wait (a feed integrator's 15 to 30 s, or a
 * test's fraction of a second).
 */
export function pollFeed(api: Api, inbox: Inbox, everyMs: () => number, errors: string[]): FeedPoller {
  let cursor: string | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let reading: Promise<void> = Promise.resolve();
  const readNow = () => (reading = reading.then(async () => {
    for (;;) {
      const page = await api.get(`/events?limit=200${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
      if (page.status !== 200) return void errors.push(`feed: ${page.status}`);
      for (const event of page.body.data as ZooEvent[]) inbox.take(event);
      cursor = page.body.next_cursor ?? cursor;
      if (!page.body.has_more) return;
    }
  }).catch((e: unknown) => void errors.push(`feed: ${String(e)}`)));
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => void readNow().then(next), everyMs());
  };
  next();
  return {
    readNow,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
