import { z } from 'zod';
import { datetimeOut, id } from './common.js';
import { documentedAs } from './documented.js';
import { ENTREGA_ACTIONS, ENTREGA_PAYMENT_METHODS } from './enums.js';
import { EXTERNAL_ID_PATTERN, LIMITS } from './limits.js';

// spec: Independent delivery — amounts are whole guaraníes (integers), never text.
const MAX_GUARANIES = 1_000_000_000_000;
export const guaranies = z.int().min(0).max(MAX_GUARANIES).meta({ description: 'Guaraníes enteros', example: 15000 });

// See docs/entregas.md for the states and transitions chosen (the spec leaves them open).
export const ENTREGA_STATUSES = ['requested', 'picked_up', 'delivered', 'returned', 'cancelled'] as const;
export const entregaStatus = z.enum(ENTREGA_STATUSES);
export type EntregaStatus = z.infer<typeof entregaStatus>;

// The plain lists live in enums.ts (zod-free, for the CLI's --help); re-exported here.
export { ENTREGA_ACTIONS, ENTREGA_PAYMENT_METHODS };
export const entregaAction = z.enum(ENTREGA_ACTIONS);
export type EntregaAction = z.infer<typeof entregaAction>;

const requestKey = z.string().regex(EXTERNAL_ID_PATTERN).meta({
  description: 'Clave del sistema externo: repetirla devuelve la misma entrega',
  example: 'ENV-2026-0001',
});

// spec: Endpoints, POST /entregas — `request_key` and an order, or the data of a manual delivery.
export const entregaCreate = z.strictObject({
  request_key: requestKey,
  order_id: id('order').optional(),
  customer: z.strictObject({ name: z.string().min(1).max(120), phone: z.string().min(6).max(30) }).optional(),
  address: z.strictObject({ line: z.string().min(1).max(255), reference: z.string().max(255).optional() }).optional(),
  payment_method: z.enum(ENTREGA_PAYMENT_METHODS).optional(),
  customer_total: guaranies.optional(),
  customer_fee: guaranies.optional(),
  courier_fee: guaranies.optional(),
  /** spec: "for transfers the merchant's confirmation of receipt is required". */
  transfer_received: z.boolean().optional(),
  notes: z.string().max(500).optional(),
});
export type EntregaCreate = z.output<typeof entregaCreate>;

// The two shapes of the body, for the document: the route reads the lenient `entregaCreate` so that
// each missing or extra field gets its own `details` entry (emulator/entregas/create.ts).
const MANUAL_FIELDS = { customer: true, address: true, payment_method: true, customer_total: true, customer_fee: true, courier_fee: true } as const;
/** An accepted delivery order of the store: the delivery's data come from the order. */
export const entregaFromOrder = entregaCreate.omit(MANUAL_FIELDS).required({ order_id: true });
/** A delivery that no order of the service describes: every field of it, and for transfers the merchant's confirmation. */
export const entregaManual = entregaCreate
  .omit({ order_id: true })
  .required(MANUAL_FIELDS)
  .meta({
    if: { required: ['payment_method'], properties: { payment_method: { const: 'bank_transfer' } } },
    then: { required: ['transfer_received'], properties: { transfer_received: { const: true } } },
  });
/** The body of POST /entregas as the document shows it: exactly one of the two shapes. */
export const entregaCreateShapes = z.xor([entregaFromOrder, entregaManual]);
documentedAs(entregaCreate, entregaCreateShapes);

// spec: Endpoints, POST /entregas/{id}/{action} — the body of each action.
export const entregaActionBodies = {
  pickup: z.strictObject({ settlement_confirmed: z.literal(true) }),
  raise_fee: z.strictObject({ amount: guaranies.min(1).meta({ description: 'Nueva tarifa del repartidor, mayor que la actual' }) }),
  cancel: z.strictObject({ reason: z.string().min(LIMITS.text.reasonMin).max(LIMITS.text.reasonMax) }),
  returned: z.strictObject({
    goods_received: z.literal(true),
    refund_confirmed: z.boolean().optional(),
    return_fee: guaranies.optional(),
  }),
  // One body per action, no more, no fewer: the document writes one path per key (`variantsOf`).
} as const satisfies Record<EntregaAction, z.ZodType>;

/** Any action's body; the route checks it against the action's own schema. */
export const entregaActionBody = z.union([
  entregaActionBodies.pickup,
  entregaActionBodies.raise_fee,
  entregaActionBodies.cancel,
  entregaActionBodies.returned,
]);

export const entregaParams = z.strictObject({ id: id('entrega') });
export const entregaActionParams = z.strictObject({ id: id('entrega'), action: entregaAction });

// spec: Independent delivery — the record as the merchant's credential reads it.
export const entrega = z.object({
  id: id('entrega'),
  request_key: z.string(),
  order_id: z.string().nullable(),
  status: entregaStatus,
  payment_method: z.enum(ENTREGA_PAYMENT_METHODS),
  customer: z.object({ name: z.string(), phone: z.string() }),
  address: z.object({ line: z.string(), reference: z.string().nullable() }),
  customer_total: z.int(),
  customer_fee: z.int(),
  courier_fee: z.int(),
  return_fee: z.int().nullable(),
  balance: z.int().meta({ description: 'Positivo: el repartidor entrega dinero al comercio; negativo: el comercio al repartidor' }),
  settlement_confirmed: z.boolean(),
  goods_received: z.boolean(),
  refund_confirmed: z.boolean(),
  transfer_received: z.boolean(),
  cancel_reason: z.string().nullable(),
  notes: z.string().nullable(),
  delivery_code: z.string().meta({ description: 'Privado del cliente: compartirlo con el cliente, nunca con el repartidor' }),
  tracking_url: z.string().meta({ description: 'Privado del cliente' }),
  history: z.array(z.object({ status: entregaStatus, at: datetimeOut, note: z.string().nullable() })),
  created_at: datetimeOut,
  updated_at: datetimeOut,
});
export type Entrega = z.infer<typeof entrega>;

/** The route's first check of an action body: an object; the action's own schema checks the fields. */
export const entregaActionAnyBody = z.record(z.string(), z.unknown());
