import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MerchantClient } from '../../src/client/merchant-client.js';
import { ApiError } from '../../src/client/errors.js';
import type { CallOptions } from '../../src/client/types.js';
import { ReferenceReceiver, type ReceivedEvent } from '../../checks/internal/receiver.js';
import type { Task } from '../../checks/tasks.js';
import { request } from './http.js';

/**
 * The ERPs the observer grades. `good` follows the spec; each broken one fails exactly one
 * mandatory check:
 * - skips_signatures: its receiver accepts any delivery (→ signature_rejection);
 * - new_key_per_retry: retries a 429/503 with a new Idempotency-Key (→ retries);
 * - never_acks: never acknowledges nor reports an import failure (→ import);
 * - applies_older_versions: takes every order version as current, so an older one that arrives late
 *   is imported again (→ signature_rejection, out-of-order probe);
 * - repeats_refused_move: accepts delivery orders without looking at their newest version and sends
 *   a refused move once more, unchanged (→ statuses).
 */
export type ErpVariant = 'good' | 'skips_signatures' | 'new_key_per_retry' | 'never_acks' | 'applies_older_versions' | 'repeats_refused_move';

/**
 * How it publishes its menu: `mixed` (single endpoints, its own availability change and a one-part
 * full snapshot), `batch` (batch operations only) or `single` (single endpoints only, no snapshot).
 * `batch` and `single` change no availability on their own: the session asks for one (mark_unavailable).
 */
export type PublishStyle = 'mixed' | 'batch' | 'single';

export interface ErpOptions {
  variant?: ErpVariant;
  publish?: PublishStyle;
  /** The client's connections (a dispatcher that trusts a test's TLS certificate: the docs' nginx). */
  dispatcher?: Dispatcher;
}

/** A person's actions in the ERP, each one call (or two) to the API. */
export interface Operator {
  reject(orderId: string, reason: string): Promise<void>;
  accept(orderId: string, minutes: number): Promise<void>;
  cancel(orderId: string, reason: string): Promise<void>;
  markSoldOut(externalId: string): Promise<void>;
  /** Maps the unknown product to a generic one and imports the order: ack. */
  resolveImport(orderId: string): Promise<void>;
  /** What a person does for one published task (the CI driver's hand-over). */
  perform(task: Pick<Task, 'action' | 'order_id' | 'external_id'>): Promise<void>;
}

export interface ReferenceErp {
  receiver: ReferenceReceiver;
  client: MerchantClient;
  operator: Operator;
  /** The operator interface over HTTP: POST {operatorUrl}/tasks with a task performs it (200) or says why not (422). */
  operatorUrl: string;
  /** Unexpected errors of the ERP's own work (a test asserts none). */
  errors: string[];
  close(): Promise<void>;
}

type Order = NonNullable<ReceivedEvent['order']> & {
  number?: number;
  fulfillment_type?: string;
  items?: { product: { external_id: string | null } }[];
  integration?: { ack_status: string };
};

const FINAL = ['completed', 'rejected', 'cancelled'];

/**
 * A small ERP written on the typed client, as an integrator would: it connects, publishes its
 * catalog, receives orders on a verifying webhook receiver and imports them (an order with an
 * unknown product is reported with import-failure and waits for a person). The kitchen takes
 * delivery orders on its own: accepted with an estimate, then ready and completed, each move made
 * on the newest version it holds. Pickup orders wait for the counter staff: the operator.
 */
export async function startReferenceErp(baseUrl: string, credential: string, options: ErpOptions = {}): Promise<ReferenceErp> {
  const variant = options.variant ?? 'good';
  const publish = options.publish ?? 'mixed';
  const client = new MerchantClient({ baseUrl, credential, maxRetries: variant === 'new_key_per_retry' ? 0 : 4, dispatcher: options.dispatcher });
  const errors: string[] = [];
  const chains = new Map<string, Promise<void>>();
  const cooked = new Set<string>();
  let stopped = false;

  /** A write, retried after 429/503 honouring Retry-After: by the client (same key), or by hand with a new key (broken). */
  async function write<T>(fn: (o: CallOptions) => Promise<T>): Promise<T> {
    if (variant !== 'new_key_per_retry') return fn({});
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn({ idempotencyKey: `erp-${randomBytes(8).toString('hex')}` });
      } catch (error) {
        if (!(error instanceof ApiError) || ![429, 503].includes(error.status) || attempt > 4) throw error;
        await new Promise((r) => setTimeout(r, (error.retryAfter ?? 1) * 1000));
      }
    }
  }

  const newest = (id: string) => receiver.orders.get(id)?.status;
  /** Its own answers are news too: the order a move returned is held if newer. */
  const remember = (order: Order) => {
    const held = receiver.orders.get(order.id);
    if (!held || Date.parse(order.updated_at) > Date.parse(held.updated_at)) receiver.orders.set(order.id, order);
  };

  /** A move the kitchen makes on its own: only from the status it holds as newest; a refusal is understood (not retried). */
  async function kitchenMove(id: string, body: Parameters<MerchantClient['orders']['setStatus']>[1], from: string[]): Promise<boolean> {
    if (variant !== 'repeats_refused_move' && !from.includes(newest(id) ?? '')) return false;
    try {
      remember((await write((o) => client.orders.setStatus(id, body, o))) as Order);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_status_transition') throw error;
      // Broken: the refused move is sent again as it was.
      if (variant === 'repeats_refused_move') await client.orders.setStatus(id, body).catch(() => undefined);
      return false;
    }
  }

  /** Import: ack, or import-failure for an order with an unknown product (a person resolves it later). */
  async function importOrder(order: Order): Promise<boolean> {
    const unmapped = (order.items ?? []).some((i) => i.product.external_id === null);
    if (variant === 'never_acks' || order.integration?.ack_status !== 'pending') return !unmapped;
    if (unmapped) {
      await write((o) => client.orders.importFailure(order.id, { code: 'unmapped_product', message: 'A product has no code in the ERP.', retryable: true }, o));
      return false;
    }
    remember((await write((o) => client.orders.ack(order.id, { external_id: `ERP-${order.number ?? order.id}` }, o))) as Order);
    return true;
  }

  /** The kitchen takes imported delivery orders, once each. */
  async function kitchen(order: Order): Promise<void> {
    if (order.fulfillment_type !== 'delivery' || cooked.has(order.id)) return;
    cooked.add(order.id);
    if (variant === 'repeats_refused_move') {
      await kitchenMove(order.id, { status: 'accepted', estimated_minutes: 30 }, []);
      return;
    }
    await kitchenMove(order.id, { status: 'accepted', estimated_minutes: 30 }, ['pending']);
    await kitchenMove(order.id, { status: 'ready' }, ['accepted', 'preparing']);
    await kitchenMove(order.id, { status: 'completed' }, ['ready']);
  }

  async function handle(order: Order): Promise<void> {
    if (await importOrder(order)) await kitchen(order);
  }

  const receiver = await new ReferenceReceiver({
    verify: variant !== 'skips_signatures',
    keepNewest: variant !== 'applies_older_versions',
    onEvent(event) {
      const types = variant === 'applies_older_versions' ? ['order.created', 'order.updated'] : ['order.created'];
      if (!event.order || !types.includes(event.type)) return;
      const order = event.order as Order;
      // One chain per order: its events are handled in the order they came.
      const previous = chains.get(order.id) ?? Promise.resolve();
      chains.set(order.id, previous.then(() => handle(order)).catch((e: unknown) => void errors.push(`${order.id}: ${String(e)}`)));
    },
  }).listen();

  const operator = operatorOf(client, publish, write);
  await connectAndPublish(client, publish);
  const webhook = await client.webhook.put({ url: receiver.url, events: ['*'] });
  receiver.secrets = [(webhook as { signing_secret?: string }).signing_secret ?? (await client.webhook.rotateSecret()).signing_secret];
  const poll = pollFeed(client, () => stopped, errors);
  const server = await operatorServer(operator, errors);

  return {
    receiver,
    client,
    operator,
    operatorUrl: server.url,
    errors,
    async close() {
      stopped = true;
      clearInterval(poll);
      await Promise.allSettled([...chains.values()]);
      await Promise.all([receiver.close(), server.close()]);
      await client.close();
    },
  };
}

/** The person's actions, published the ERP's way (a batch ERP marks sold out by batch). */
function operatorOf(client: MerchantClient, publish: PublishStyle, write: <T>(fn: (o: CallOptions) => Promise<T>) => Promise<T>): Operator {
  const operator: Operator = {
    reject: async (id, reason) => void (await write((o) => client.orders.setStatus(id, { status: 'rejected', reason }, o))),
    accept: async (id, minutes) => void (await write((o) => client.orders.setStatus(id, { status: 'accepted', estimated_minutes: minutes }, o))),
    cancel: async (id, reason) => void (await write((o) => client.orders.setStatus(id, { status: 'cancelled', reason }, o))),
    async markSoldOut(externalId) {
      if (publish === 'batch') await write((o) => client.catalog.batch({ operations: [{ op: 'patch_product', external_id: externalId, data: { available: false } }] }, o));
      else await write((o) => client.catalog.products.patch(externalId, { available: false }, o));
    },
    resolveImport: async (id) => void (await write((o) => client.orders.ack(id, { external_id: `ERP-GENERIC-${id.slice(-6)}` }, o))),
    async perform(task) {
      switch (task.action) {
        case 'reject_order':
          return operator.reject(task.order_id!, 'We cannot prepare this order today');
        case 'cancel_order':
          await operator.accept(task.order_id!, 25);
          return operator.cancel(task.order_id!, 'The customer called to cancel');
        case 'mark_unavailable':
          return operator.markSoldOut(task.external_id!);
        case 'import_after_failure':
          return operator.resolveImport(task.order_id!);
      }
    },
  };
  return operator;
}

/** POST /tasks {task}: the operator does it. Real HTTP on 127.0.0.1, port 0 (a CI driver's hand-over). */
async function operatorServer(operator: Operator, errors: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/tasks') return void res.writeHead(404).end();
      let task: Task;
      try {
        task = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Task;
      } catch {
        return void res.writeHead(400).end('not JSON');
      }
      operator.perform(task).then(
        () => res.writeHead(200).end('done'),
        (e: unknown) => (errors.push(`task ${task.id}: ${String(e)}`), res.writeHead(422).end(String(e))),
      );
    });
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

const CATEGORY = { name: 'Burgers', position: 1 };
const CLASSIC = {
  name: 'Classic burger',
  category_external_id: 'erp-burgers',
  price: '30000',
  option_groups: [{ external_id: 'erp-extras', name: 'Extras', min_select: 0, max_select: 2, options: [{ external_id: 'erp-cheese', name: 'Cheese', price: '4000' }] }],
};
const DOUBLE = { name: 'Double burger', category_external_id: 'erp-burgers', price: '42000' };

/** What an ERP does before any session: connect, publish its catalog its own way. */
async function connectAndPublish(client: MerchantClient, publish: PublishStyle): Promise<void> {
  await client.me();
  if (publish === 'batch') {
    const upserts = [
      { op: 'upsert_category' as const, external_id: 'erp-burgers', data: CATEGORY },
      { op: 'upsert_product' as const, external_id: 'erp-classic', data: CLASSIC },
      { op: 'upsert_product' as const, external_id: 'erp-double', data: DOUBLE },
    ];
    await client.catalog.batch({ full_snapshot: true, operations: upserts });
    await client.catalog.batch({ operations: [{ op: 'patch_product', external_id: 'erp-classic', data: { price: '32000' } }] });
    return;
  }
  await client.catalog.categories.put('erp-burgers', CATEGORY);
  await client.catalog.products.put('erp-classic', CLASSIC);
  await client.catalog.products.put('erp-double', DOUBLE);
  if (publish === 'single') {
    await client.catalog.products.patch('erp-classic', { price: '32000' });
    return;
  }
  await client.catalog.products.patch('erp-classic', { price: '32000' });
  await client.catalog.options.patch('erp-cheese', { available: true });
  await client.catalog.batch({
    full_snapshot: true,
    operations: [
      { op: 'upsert_category', external_id: 'erp-burgers', data: CATEGORY },
      { op: 'upsert_product', external_id: 'erp-classic', data: { ...CLASSIC, price: '32000' } },
      { op: 'upsert_product', external_id: 'erp-double', data: DOUBLE },
    ],
  });
}

/** Reconciliation: the feed is read now and then, as the spec suggests alongside a webhook. */
function pollFeed(client: MerchantClient, stopped: () => boolean, errors: string[]): NodeJS.Timeout {
  let cursor: string | undefined;
  return setInterval(() => {
    if (stopped()) return;
    client.events
      .list({ after: cursor, limit: 200 })
      .then((page) => void (cursor = page.next_cursor ?? cursor))
      .catch((e: unknown) => void errors.push(`feed: ${String(e)}`));
  }, 500);
}

export interface TaskDriver {
  /** Task ids handed to the ERP, in order. */
  performed: string[];
  errors: string[];
  stop(): Promise<void>;
}

/**
 * A person (or a CI driver) doing the published tasks: reads them from
 * GET /_emulator/homologation/{integration_id} every `intervalMs` and hands each open one to the
 * ERP's operator, once.
 */
export function driveTasks(adminUrl: string, integrationId: string, operator: Pick<Operator, 'perform'>, intervalMs = 100, token?: string): TaskDriver {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const performed: string[] = [];
  const errors: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await request<{ data: { tasks: Task[] } }>(`${adminUrl}/homologation/${integrationId}`, 'GET', { headers });
        const tasks = res.body.data.tasks;
        for (const task of tasks.filter((t) => t.status === 'open' && !performed.includes(t.id))) {
          performed.push(task.id);
          await operator.perform(task).catch((e: unknown) => void errors.push(`${task.id}: ${String(e)}`));
        }
      } catch (error) {
        if (!stopped) errors.push(`driver: ${String(error)}`);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    performed,
    errors,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
