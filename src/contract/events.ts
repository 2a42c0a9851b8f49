import { z } from 'zod';
import { commaList, cursor, datetimeOut, id, queryInt } from './common.js';
import { LIMITS } from './limits.js';
import { changeActor, order, orderStatus } from './orders.js';
import type { Scope } from './store.js';
import { EVENT_TYPES } from './enums.js';

// spec: Events — every type (the zod-free list of enums.ts), with the permission an integration needs to see it.
export { EVENT_TYPES };
export const eventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventType>;

export const EVENT_SCOPES: Record<EventType, Scope | null> = {
  'order.created': 'orders:read',
  'order.status_changed': 'orders:read',
  'order.updated': 'orders:read',
  'store.updated': 'store:read',
  'integration.updated': null,
  'webhook.test': null,
};

/** The event types a set of scopes lets an integration see. */
export function visibleEventTypes(scopes: readonly string[]): EventType[] {
  return EVENT_TYPES.filter((t) => EVENT_SCOPES[t] === null || scopes.includes(EVENT_SCOPES[t]!));
}

/** spec: Events — `changed_by.integration_id` is null unless an integration made the change. */
export const changedBy = z.object({ type: changeActor, integration_id: id('integration').nullable() });

export const orderCreatedData = z.object({ order });
export const orderStatusChangedData = z.object({ order, previous_status: orderStatus, changed_by: changedBy });
/** `changed` names what moved (`payment`, `integration`); `changed_by` is an addition, as for status changes. */
export const orderUpdatedData = z.object({ order, changed: z.array(z.string()), changed_by: changedBy });

// spec: Resources, Event — the envelope, one shape per event type so that `type` tells what `data` holds.
const envelope = {
  id: id('event'),
  api_version: z.literal('1.0'),
  created_at: datetimeOut,
  store_id: id('store'),
  integration_id: id('integration'),
};
/** spec: Events — `data` of an event type whose payload the spec does not show: an object, read as such. */
const unshownData = (sent: string) =>
  z.record(z.string(), z.unknown()).meta({ description: `Contenido no definido por la especificación; el emulador envía ${sent}` });

export const orderCreatedEvent = z.object({ ...envelope, type: z.literal('order.created'), data: orderCreatedData });
export const orderStatusChangedEvent = z.object({ ...envelope, type: z.literal('order.status_changed'), data: orderStatusChangedData });
export const orderUpdatedEvent = z.object({ ...envelope, type: z.literal('order.updated'), data: orderUpdatedData });
export const storeUpdatedEvent = z.object({ ...envelope, type: z.literal('store.updated'), data: unshownData('`store` y `changed`') });
export const integrationUpdatedEvent = z.object({ ...envelope, type: z.literal('integration.updated'), data: unshownData('`integration` y `changed`') });
export const webhookTestEvent = z.object({ ...envelope, type: z.literal('webhook.test'), data: unshownData('un objeto de prueba sin pedido') });

const EVENT_SHAPES = {
  'order.created': 'OrderCreatedEvent',
  'order.status_changed': 'OrderStatusChangedEvent',
  'order.updated': 'OrderUpdatedEvent',
  'store.updated': 'StoreUpdatedEvent',
  'integration.updated': 'IntegrationUpdatedEvent',
  'webhook.test': 'WebhookTestEvent',
} satisfies Record<EventType, string>;

/**
 * An event of the feed or a webhook delivery, told apart by `type` (a discriminated union: generated
 * clients narrow `data` by `type`; the `discriminator` names each type's component).
 */
export const event = z
  .discriminatedUnion('type', [orderCreatedEvent, orderStatusChangedEvent, orderUpdatedEvent, storeUpdatedEvent, integrationUpdatedEvent, webhookTestEvent])
  .meta({
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(Object.entries(EVENT_SHAPES).map(([type, name]) => [type, `#/components/schemas/${name}`])),
    },
  });
export type ApiEvent = z.infer<typeof event>;

/** A comma list of event types: `order.created,order.status_changed`. */
const typeList = commaList(eventType, 'order.created,order.status_changed');

// spec: GET /events query — limit 1 to 200, default 100.
export const feedQuery = z.strictObject({
  after: cursor.optional(),
  limit: queryInt(1, LIMITS.pageSizeMax).default(LIMITS.feedPageDefault),
  types: typeList.optional(),
});

// spec: GET /events — response 200.
export const feedResponse = z.object({
  data: z.array(event),
  next_cursor: cursor.nullable(),
  has_more: z.boolean(),
  cursor_expired: z.boolean(),
});
