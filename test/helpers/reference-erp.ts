import { randomBytes } from 'node:crypto';
import { MerchantClient } from '../../src/client/merchant-client.js';
import { ApiError } from '../../src/client/errors.js';
import type { CallOptions } from '../../src/client/types.js';
import { ReferenceReceiver, type ReceivedEvent } from '../../checks/internal/receiver.js';

/**
 * The broken ERPs the observer must catch, each failing exactly one check:
 * - skips_signatures: its receiver accepts any delivery (→ signature_rejection);
 * - new_key_per_retry: retries a 429/503 with a new Idempotency-Key (→ retries);
 * - never_acks: never acknowledges nor reports an import failure (→ import);
 * - applies_older_versions: takes every order version as current, so an older one that arrives late
 *   is imported again (→ signature_rejection, out-of-order probe).
 */
export type ErpVariant = 'good' | 'skips_signatures' | 'new_key_per_retry' | 'never_acks' | 'applies_older_versions';

export interface ReferenceErp {
  receiver: ReferenceReceiver;
  client: MerchantClient;
  /** Unexpected errors of the ERP's own work (a test asserts none). */
  errors: string[];
  close(): Promise<void>;
}

type Order = NonNullable<ReceivedEvent['order']> & { notes?: string; number?: number; items?: { product: { external_id: string | null } }[]; integration?: { ack_status: string } };

/**
 * A small ERP written on the typed client, as an integrator would: it connects, publishes its
 * catalog, receives orders on a verifying webhook receiver, imports them, and works through the
 * homologation's status moves on the session's orders (recognised by their notes).
 */
export async function startReferenceErp(baseUrl: string, credential: string, variant: ErpVariant = 'good'): Promise<ReferenceErp> {
  const client = new MerchantClient({ baseUrl, credential, maxRetries: variant === 'new_key_per_retry' ? 0 : 4 });
  const errors: string[] = [];
  const chains = new Map<string, Promise<void>>();
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

  /** A call expected to be refused with `code` (the ERP "understands" it: no retry). */
  async function expectRefusal(code: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
      errors.push(`expected ${code}, got a success`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== code) errors.push(`expected ${code}, got ${String(error)}`);
    }
  }

  async function importOrder(order: Order, created: boolean): Promise<void> {
    const notes = order.notes ?? '';
    const code = `ERP-${order.number ?? order.id}`;
    const unmapped = (order.items ?? []).some((i) => i.product.external_id === null);
    if (variant !== 'never_acks' && order.integration?.ack_status === 'pending') {
      if (unmapped) {
        await write((o) => client.orders.importFailure(order.id, { code: 'unmapped_product', message: 'A product has no code in the ERP.', retryable: true }, o));
        // The merchant maps the product to a generic one in the ERP; the import then succeeds.
      }
      await write((o) => client.orders.ack(order.id, { external_id: code }, o));
    }
    // The homologation's moves are worked through once, when the order first arrives.
    if (!created) return;
    if (notes === 'homologation delivery order') {
      if (variant !== 'never_acks') {
        await write((o) => client.orders.ack(order.id, { external_id: code }, o));
        await expectRefusal('external_id_conflict', () => client.orders.ack(order.id, { external_id: `${code}-B` }));
      }
      await write((o) => client.orders.setStatus(order.id, { status: 'accepted', estimated_minutes: 30 }, o));
      await write((o) => client.orders.setStatus(order.id, { status: 'ready' }, o));
      await write((o) => client.orders.setStatus(order.id, { status: 'completed' }, o));
      await expectRefusal('invalid_status_transition', () => client.orders.setStatus(order.id, { status: 'preparing' }));
    } else if (notes === 'homologation pickup_invoice order') {
      await write((o) => client.orders.setStatus(order.id, { status: 'rejected', reason: 'Out of stock today' }, o));
    } else if (notes === 'homologation unmapped_product order') {
      await write((o) => client.orders.setStatus(order.id, { status: 'cancelled', reason: 'The customer called to cancel' }, o));
    }
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
      chains.set(order.id, previous.then(() => importOrder(order, event.type === 'order.created')).catch((e: unknown) => void errors.push(`${order.id}: ${String(e)}`)));
    },
  }).listen();

  await connectAndPublish(client);
  const webhook = await client.webhook.put({ url: receiver.url, events: ['*'] });
  receiver.secrets = [(webhook as { signing_secret?: string }).signing_secret ?? (await client.webhook.rotateSecret()).signing_secret];

  const poll = pollFeed(client, () => stopped, errors);

  return {
    receiver,
    client,
    errors,
    async close() {
      stopped = true;
      clearInterval(poll);
      await Promise.allSettled([...chains.values()]);
      await receiver.close();
      await client.close();
    },
  };
}

/** What an ERP does before any session: connect, publish its catalog (a full snapshot in two parts). */
async function connectAndPublish(client: MerchantClient): Promise<void> {
  await client.me();
  await client.catalog.categories.put('erp-burgers', { name: 'Burgers', position: 1 });
  await client.catalog.products.put('erp-classic', {
    name: 'Classic burger',
    category_external_id: 'erp-burgers',
    price: '30000',
    option_groups: [{ external_id: 'erp-extras', name: 'Extras', min_select: 0, max_select: 2, options: [{ external_id: 'erp-cheese', name: 'Cheese', price: '4000' }] }],
  });
  await client.catalog.products.patch('erp-classic', { price: '32000', available: true });
  const snapshot = `erp-snap-${randomBytes(4).toString('hex')}`;
  const product = (id: string, name: string) => ({ op: 'upsert_product' as const, external_id: id, data: { name, category_external_id: 'erp-burgers', price: '30000' } });
  await client.catalog.batch({ full_snapshot: true, snapshot_id: snapshot, snapshot_part: 1, snapshot_last: false, operations: [{ op: 'upsert_category', external_id: 'erp-burgers', data: { name: 'Burgers', position: 1 } }, product('erp-classic', 'Classic burger')] });
  await client.catalog.batch({ full_snapshot: true, snapshot_id: snapshot, snapshot_part: 2, snapshot_last: true, operations: [product('erp-double', 'Double burger')] });
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
