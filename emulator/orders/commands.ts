import type { EnvContext } from '../context.js';
import type { Repositories, Tx } from '../store/port.js';
import type { WorkClaim } from '../store/coordination.js';
import type { OrderRecord } from './repository.js';
import type { ChangeActor, OrderStatus } from '../../src/contract/orders.js';
import { ApiError } from '../../src/contract/errors.js';
import { parseDate } from '../../src/contract/dates.js';
import { mayChange, transition, type StatusAuthority } from './status-machine.js';
import { keepPresented, presentOrder } from './present.js';

// The orders aggregate's commands (import confirmation, import failures, status changes, payment): one
// per spec section, each one unit of work that loads the order locked and emits its events in it.
// An API request's idempotency claim (`claim`) rides with that unit of work (route.ts `claimsWithWork`).

/** Who made a change: `integration_id` is set only when an integration did (spec: Events, changed_by). */
export interface Actor {
  type: ChangeActor;
  integrationId: string | null;
  /**
   * The integration's status authority as the request's credential read it (api/authenticate.ts), in
   * this request, after every write answered before it: no second read inside the transaction.
   */
  authority?: StatusAuthority;
}

export interface StatusChange {
  status: OrderStatus;
  reason?: string;
  estimated_minutes?: number;
  occurred_at?: string;
}

/**
 * The order, or 404 `not_found` when it does not exist or belongs to another store (spec: Errors).
 * With `lock` (a write about to follow) the row is held until the transaction ends.
 */
export async function loadOrder(r: Repositories, orderId: string, storeId: string | null, lock = false): Promise<OrderRecord> {
  const order = await r.orders.byId(orderId, { lock });
  if (!order || (storeId !== null && order.storeId !== storeId)) throw ApiError.of('not_found', undefined, 'El pedido no existe.');
  return order;
}

/**
 * The `order_status_authority` that applies: the calling integration's own setting for the API;
 * for the panel, `erp` on any integration of the store hands status changes to the ERP.
 */
async function authorityFor(tx: Tx, storeId: string, actor: Actor): Promise<StatusAuthority> {
  if (actor.type === 'integration' && actor.integrationId) {
    if (actor.authority) return actor.authority;
    return (await tx.integrations.byId(actor.integrationId))?.settings.order_status_authority ?? 'both';
  }
  const settings = (await tx.integrations.byStore(storeId)).map((i) => i.settings.order_status_authority);
  return settings.includes('erp') ? 'erp' : 'both';
}

/** spec: status body `occurred_at` — DESIGN: not in the future, not before the order's creation. */
function occurredAt(env: EnvContext, order: OrderRecord, text: string | undefined): number {
  const now = env.clock.now();
  if (text === undefined) return now;
  const at = parseDate(text);
  if (at > now) throw ApiError.field('occurred_at', 'in_future', 'occurred_at no puede estar en el futuro.');
  if (at < order.createdAt) throw ApiError.field('occurred_at', 'before_creation', 'occurred_at no puede ser anterior a la creación del pedido.');
  return at;
}

/**
 * DESIGN: an order's `updated_at` increases strictly with every write, one millisecond past the
 * previous value when the clock has not moved (the manual clock, or two writes in the same
 * millisecond), so receivers can always drop the older of two versions (spec: Events).
 */
function nextUpdatedAt(order: OrderRecord, now: number): number {
  return Math.max(now, order.updatedAt + 1);
}

const changedBy = (actor: Actor) => ({ type: actor.type, integration_id: actor.integrationId });

/**
 * spec: Order status — one status change from any origin. Read, check and write happen in one
 * transaction (SQLite runs it alone), so concurrent requests see each other's result and the
 * history stays a legal path; the event is written in that same transaction.
 */
export async function changeStatus(
  env: EnvContext, orderId: string, storeId: string | null, actor: Actor, change: StatusChange, claim?: WorkClaim,
): Promise<OrderRecord> {
  return env.store.tx(async (tx) => {
    const order = await loadOrder(tx, orderId, storeId, true);
    if (!mayChange(actor.type, await authorityFor(tx, order.storeId, actor), order.status, change.status)) {
      throw ApiError.of('status_authority_denied');
    }
    const verdict = transition(order.status, change.status, order.fulfillmentType);
    if (verdict === 'same') return order; // spec: 200, no effect, no event
    if (verdict === 'invalid') throw ApiError.of('invalid_status_transition', { current_status: order.status });
    const at = occurredAt(env, order, change.occurred_at);
    const previous = order.status;
    const now = env.clock.now();
    const updated: OrderRecord = {
      ...order,
      status: change.status,
      statusReason: change.reason ?? null,
      estimatedMinutes: change.status === 'accepted' ? (change.estimated_minutes ?? null) : order.estimatedMinutes,
      acceptedAt: change.status === 'accepted' ? now : order.acceptedAt,
      updatedAt: nextUpdatedAt(order, now),
    };
    // The order and its history entry: one statement on a server database (issue 25).
    await tx.orders.update(updated, { status: change.status, at, by: actor.type, integrationId: actor.integrationId, reason: change.reason ?? null });
    await tx.emit('order.status_changed', order.storeId, {
      order: await keepPresented(tx.orders, updated),
      previous_status: previous,
      changed_by: changedBy(actor),
    });
    return updated;
  }, claim);
}

async function emitUpdated(tx: Tx, order: OrderRecord, changed: string[], actor: Actor): Promise<void> {
  await tx.emit('order.updated', order.storeId, { order: await keepPresented(tx.orders, order), changed, changed_by: changedBy(actor) });
}

/**
 * spec: Import confirmation — ack sets `acknowledged`; the same code again has no effect; another
 * code is 409 `external_id_conflict`, as is a code that already names another order of the store.
 */
export async function acknowledge(
  env: EnvContext, orderId: string, storeId: string, integrationId: string, body: { external_id: string; external_number?: string }, claim?: WorkClaim,
): Promise<OrderRecord> {
  return env.store.tx(async (tx) => {
    // The code's check goes with the order's lock (a server database sends both at once, the check
    // behind the lock on the transaction's connection: one round trip, issue 25). Whatever the order
    // they run in, a concurrent ack of another order with the same code is caught: the stored codes
    // are unique per store, and the unit of work runs again and finds it.
    const [order, other] = await Promise.all([loadOrder(tx, orderId, storeId, true), tx.orders.byExternalId(storeId, body.external_id)]);
    if (order.ackStatus === 'acknowledged') {
      if (order.externalId === body.external_id) return order;
      throw ApiError.of('external_id_conflict', { external_id: order.externalId });
    }
    if (other && other.id !== order.id) {
      throw ApiError.of('external_id_conflict', undefined, 'Ese código externo ya identifica a otro pedido del comercio.');
    }
    // One instant for the write and what it records: acknowledged_at equals the new updated_at.
    const now = nextUpdatedAt(order, env.clock.now());
    const updated: OrderRecord = {
      ...order,
      ackStatus: 'acknowledged',
      externalId: body.external_id,
      externalNumber: body.external_number ?? null,
      acknowledgedAt: now,
      ackIntegrationId: integrationId,
      updatedAt: now,
    };
    await tx.orders.update(updated);
    await emitUpdated(tx, updated, ['integration'], { type: 'integration', integrationId });
    return updated;
  }, claim);
}

/** spec: import-failure — `failed` with `last_import_error`; after an ack, 409 `already_acknowledged`. */
export async function reportImportFailure(
  env: EnvContext, orderId: string, storeId: string, integrationId: string, body: { code: string; message: string; retryable: boolean }, claim?: WorkClaim,
): Promise<OrderRecord> {
  return env.store.tx(async (tx) => {
    const order = await loadOrder(tx, orderId, storeId, true);
    if (order.ackStatus === 'acknowledged') throw ApiError.of('already_acknowledged');
    const now = nextUpdatedAt(order, env.clock.now());
    const updated: OrderRecord = {
      ...order,
      ackStatus: 'failed',
      lastImportError: { code: body.code, message: body.message, retryable: body.retryable, at: now },
      updatedAt: now,
    };
    await tx.orders.update(updated);
    await emitUpdated(tx, updated, ['integration'], { type: 'integration', integrationId });
    return updated;
  }, claim);
}

/** DESIGN: PATCH /_emulator/orders/{id} `payment_status: paid` — `order.updated` once; again, no effect. */
export async function markPaid(env: EnvContext, orderId: string): Promise<OrderRecord> {
  return env.store.tx(async (tx) => {
    const order = await loadOrder(tx, orderId, null, true);
    if (order.paymentStatus === 'paid') return order;
    const updated: OrderRecord = { ...order, paymentStatus: 'paid', updatedAt: nextUpdatedAt(order, env.clock.now()) };
    await tx.orders.update(updated);
    await emitUpdated(tx, updated, ['payment'], { type: 'store_user', integrationId: null });
    return updated;
  });
}
