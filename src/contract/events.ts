import { z } from 'zod';
import { commaList, datetimeOut, id, queryInt } from './common.js';
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

// spec: Resources, Event — the envelope.
export const event = z.object({
  id: id('event'),
  type: z.string(),
  api_version: z.literal('1.0'),
  created_at: datetimeOut,
  store_id: id('store'),
  integration_id: id('integration'),
  data: z.record(z.string(), z.unknown()),
});

/** A comma list of event types: `order.created,order.status_changed`. */
const typeList = commaList(eventType, 'order.created,order.status_changed');

// spec: GET /events query — limit 1 to 200, default 100.
export const feedQuery = z.strictObject({
  after: z.string().optional(),
  limit: queryInt(1, LIMITS.pageSizeMax).default(LIMITS.feedPageDefault),
  types: typeList.optional(),
});

// spec: GET /events — response 200.
export const feedResponse = z.object({
  data: z.array(event),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
  cursor_expired: z.boolean(),
});
