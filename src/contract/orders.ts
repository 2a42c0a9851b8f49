import { z } from 'zod';
import { amountOut, commaList, cursor, datetime, datetimeOut, externalId, id, NON_BLANK, pageLimit, requiredText } from './common.js';
import { ACK_STATUSES, IMPORT_FAILURE_CODES, ORDER_STATUSES, PANEL_STATUS_ACTORS, SIMULATOR_SCENARIOS } from './enums.js';
import { LIMITS } from './limits.js';
import { fulfillmentType } from './store.js';

// The plain lists live in enums.ts (zod-free, for the CLI's --help); re-exported here.
export { ORDER_STATUSES, ACK_STATUSES, IMPORT_FAILURE_CODES, SIMULATOR_SCENARIOS };

// spec: States and transitions, Order status
export const orderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof orderStatus>;

// spec: Import confirmation — `integration.ack_status`
export const ackStatus = z.enum(ACK_STATUSES);
export type AckStatus = z.infer<typeof ackStatus>;

// spec: Order, status_history.by
export const CHANGE_ACTORS = ['customer', 'store_user', 'integration', 'system'] as const;
export const changeActor = z.enum(CHANGE_ACTORS);
export type ChangeActor = z.infer<typeof changeActor>;

const nullableText = z.string().nullable();

// spec: Resources, Order — customer
export const orderCustomer = z.object({
  name: z.string(),
  phone: z.string(),
  billing: z
    .object({ document_type: z.enum(['ruc', 'ci']), document: z.string(), business_name: z.string() })
    .optional(),
});

export const deliveryAddress = z.object({
  street: z.string(),
  number: z.string(),
  neighborhood: z.string(),
  city: z.string(),
  reference: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
});

export const orderPayment = z.object({
  method_code: z.string(),
  method_name: z.string(),
  change_for: amountOut.nullable(),
  status: z.enum(['unpaid', 'paid']),
});

export const orderItemOption = z.object({
  group_name: z.string(),
  group_external_id: nullableText,
  option: z.object({ id: id('option'), external_id: nullableText }),
  name: z.string(),
  unit_price: amountOut,
  quantity: z.int(),
});

export const orderItem = z.object({
  line: z.int(),
  product: z.object({ id: id('product'), external_id: nullableText, sku: nullableText }),
  name: z.string(),
  unit_price: amountOut,
  quantity: z.int(),
  options: z.array(orderItemOption),
  notes: z.string(),
  line_total: amountOut,
});

export const importError = z.object({
  code: z.enum(IMPORT_FAILURE_CODES),
  message: z.string(),
  retryable: z.boolean(),
  at: datetimeOut,
});

export const statusHistoryEntry = z.object({
  status: orderStatus,
  at: datetimeOut,
  by: changeActor,
  reason: nullableText,
});

// spec: Resources, Order
export const order = z.object({
  id: id('order'),
  number: z.int(),
  store_id: id('store'),
  status: orderStatus,
  status_reason: nullableText,
  fulfillment_type: fulfillmentType,
  estimated_minutes: z.int().nullable(),
  created_at: datetimeOut,
  updated_at: datetimeOut,
  scheduled_for: datetimeOut.nullable(),
  customer: orderCustomer,
  delivery_address: deliveryAddress.nullable(),
  payment: orderPayment,
  items: z.array(orderItem),
  notes: z.string(),
  totals: z.object({ subtotal: amountOut, delivery_fee: amountOut, discount: amountOut, total: amountOut, currency: z.literal('PYG') }),
  integration: z.object({
    external_id: nullableText,
    external_number: nullableText,
    ack_status: ackStatus,
    acknowledged_at: datetimeOut.nullable(),
    last_import_error: importError.nullable(),
  }),
  status_history: z.array(statusHistoryEntry),
});
export type Order = z.infer<typeof order>;

/** A comma list of order states: `pending,accepted`. */
const statusList = commaList(orderStatus, 'pending,accepted');

// spec: GET /orders query
export const orderListQuery = z.strictObject({
  status: statusList.optional(),
  ack_status: ackStatus.optional(),
  created_since: datetime.optional(),
  updated_since: datetime.optional(),
  cursor: cursor.optional(),
  limit: pageLimit.default(LIMITS.listPageDefault),
});

export const orderIdParams = z.strictObject({ order_id: z.string() });
export const orderExternalIdParams = z.strictObject({ external_id: z.string() });

// spec: Limits, text lengths — status reason 3 to 255; numeric bounds — estimated_minutes 1 to 600
// A reason of only spaces is no reason: the customer would read an empty text (code `required`).
export const statusReason = z
  .string()
  .min(LIMITS.text.reasonMin)
  .max(LIMITS.text.reasonMax)
  .refine((v) => v.length < LIMITS.text.reasonMin || NON_BLANK.test(v), { message: 'El motivo no puede estar vacío.', params: { code: 'required' } })
  .meta({ pattern: NON_BLANK.source });
export const estimatedMinutes = z.int().min(LIMITS.bounds.estimatedMinutes[0]).max(LIMITS.bounds.estimatedMinutes[1]);

/** spec: status body — `reason` required for rejected and cancelled; `estimated_minutes` only with accepted. */
function statusBodyRules(body: { status: OrderStatus; reason?: string; estimated_minutes?: number }, ctx: z.RefinementCtx): void {
  if ((body.status === 'rejected' || body.status === 'cancelled') && body.reason === undefined) {
    ctx.addIssue({ code: 'custom', path: ['reason'], params: { code: 'required' }, message: `El motivo es obligatorio para el estado ${body.status}.` });
  }
  if (body.estimated_minutes !== undefined && body.status !== 'accepted') {
    ctx.addIssue({
      code: 'custom', path: ['estimated_minutes'], params: { code: 'not_allowed' },
      message: 'estimated_minutes solo se admite junto con el estado accepted.',
    });
  }
}

/** `statusBodyRules` as JSON Schema says it, for the document. */
const STATUS_BODY_RULES = {
  allOf: [
    { if: { required: ['status'], properties: { status: { enum: ['rejected', 'cancelled'] } } }, then: { required: ['reason'] } },
    { if: { required: ['estimated_minutes'] }, then: { properties: { status: { const: 'accepted' } } } },
  ],
};

// spec: POST /orders/{order_id}/status body
export const statusChangeBody = z
  .strictObject({
    status: orderStatus,
    reason: statusReason.optional(),
    estimated_minutes: estimatedMinutes.optional(),
    occurred_at: datetime.optional(),
  })
  .superRefine(statusBodyRules)
  .meta(STATUS_BODY_RULES);
export type StatusChangeBody = z.output<typeof statusChangeBody>;

// spec: Endpoints, POST /orders/{order_id}/ack
export const ackBody = z.strictObject({
  external_id: externalId,
  external_number: z.string().min(1).max(LIMITS.text.externalNumber).optional(),
});

// spec: POST /orders/{order_id}/import-failure body
export const importFailureBody = z.strictObject({
  code: z.enum(IMPORT_FAILURE_CODES),
  message: requiredText(LIMITS.text.importFailureMessage),
  retryable: z.boolean().default(false),
});

// DESIGN: control API, POST /_emulator/orders — the sandbox's order simulator.
export const simulatedItem = z
  .strictObject({
    product_external_id: externalId.optional(),
    product_id: id('product').optional(),
    quantity: z.int().min(1).max(99).default(1),
    notes: z.string().max(500).optional(),
    options: z
      .array(
        z
          .strictObject({
            option_external_id: externalId.optional(),
            option_id: id('option').optional(),
            quantity: z.int().min(1).max(50).default(1),
          })
          .refine((o) => (o.option_external_id === undefined) !== (o.option_id === undefined), {
            message: 'Indique option_external_id u option_id (uno de los dos).',
            params: { code: 'required' },
          }),
      )
      .max(100)
      .default([]),
  })
  .refine((i) => (i.product_external_id === undefined) !== (i.product_id === undefined), {
    message: 'Indique product_external_id o product_id (uno de los dos).',
    params: { code: 'required' },
  });
export type SimulatedItem = z.output<typeof simulatedItem>;

export const simulateOrderRequest = z.strictObject({
  store_id: id('store'),
  scenario: z.enum(SIMULATOR_SCENARIOS).default('delivery'),
  items: z.array(simulatedItem).min(1).max(50).optional(),
  notes: z.string().max(500).optional(),
  scheduled_for: datetime.optional(),
  payment_method_code: z.string().min(1).max(60).optional(),
});
export type SimulateOrderRequest = z.output<typeof simulateOrderRequest>;

// DESIGN: control API, POST /_emulator/orders/{order_id}/status — panel or customer change.
export const panelStatusChangeBody = z
  .strictObject({
    status: orderStatus,
    reason: statusReason.optional(),
    estimated_minutes: estimatedMinutes.optional(),
    occurred_at: datetime.optional(),
    by: z.enum(PANEL_STATUS_ACTORS).default('store_user'),
  })
  .superRefine(statusBodyRules);

// DESIGN: control API, PATCH /_emulator/orders/{order_id}
export const panelOrderPatch = z.strictObject({ payment_status: z.literal('paid') });
