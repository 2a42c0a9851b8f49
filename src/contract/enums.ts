// The API's enumerations as plain lists, without zod: the schemas of this folder build their
// `z.enum(...)` from them, and the CLI's option parsers import them from here, so that `--help`
// validates and lists the same values without loading zod. Keep this file free of imports.

// spec: States and transitions, Order status
export const ORDER_STATUSES = [
  'pending', 'accepted', 'preparing', 'ready', 'out_for_delivery', 'completed', 'rejected', 'cancelled',
] as const;

// DESIGN: control API, POST /_emulator/orders/{order_id}/status — who makes a panel-side change.
export const PANEL_STATUS_ACTORS = ['store_user', 'customer', 'system'] as const;

// spec: Resources, Store — fulfillment_types
export const FULFILLMENT_TYPES = ['delivery', 'pickup'] as const;

// spec: Import confirmation — `integration.ack_status`
export const ACK_STATUSES = ['pending', 'acknowledged', 'failed'] as const;

// spec: POST /orders/{order_id}/import-failure body, code
export const IMPORT_FAILURE_CODES = ['unmapped_product', 'invalid_customer', 'register_closed', 'validation_error', 'other'] as const;

// DESIGN: Control API, POST /_emulator/orders — the order simulator's scenarios.
export const SIMULATOR_SCENARIOS = ['delivery', 'pickup_invoice', 'unmapped_product'] as const;

// spec: Webhook delivery status
export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;

// DESIGN: /entregas — the actions of POST /entregas/{id}/{action}.
export const ENTREGA_ACTIONS = ['pickup', 'raise_fee', 'cancel', 'returned'] as const;

/** How the customer pays an independent delivery; only `cash` is collected by the courier. */
export const ENTREGA_PAYMENT_METHODS = ['cash', 'bank_transfer', 'card_on_delivery', 'qr', 'prepaid'] as const;

// spec: Events — every event type (the permission each needs is in events.ts).
export const EVENT_TYPES = [
  'order.created', 'order.status_changed', 'order.updated', 'store.updated', 'integration.updated', 'webhook.test',
] as const;

// spec: Webhook configuration — what PUT /webhook's `events` takes: the event types, or `*` alone.
export const WEBHOOK_EVENT_SELECTORS = ['*', ...EVENT_TYPES] as const;

// spec: Order status — final states do not move (rule 2).
export const FINAL_ORDER_STATUSES = ['completed', 'rejected', 'cancelled'] as const satisfies readonly (typeof ORDER_STATUSES)[number][];

// DESIGN: The operator's public test environment — an access request is decided once, by the operator.
export const ACCESS_REQUEST_STATUSES = ['pending', 'approved', 'denied'] as const;

// spec: Environments — live and test (the sandbox); a credential and a store belong to one.
export const ENVIRONMENTS = ['live', 'test'] as const;
