import { z } from 'zod';
import { datetimeOut, id, pageLimit } from './common.js';
import { DELIVERY_STATUSES } from './enums.js';
import { LIMITS } from './limits.js';
import { EVENT_SCOPES, EVENT_TYPES, type EventType } from './events.js';
import { webhookUrl } from './webhook-url.js';

/** Whether a webhook subscribed to `events` receives an event of `type` under `scopes`. */
export function webhookReceives(events: readonly string[], type: string, scopes: readonly string[]): boolean {
  if (!(type in EVENT_SCOPES)) return false;
  const needed = EVENT_SCOPES[type as EventType];
  if (needed !== null && !scopes.includes(needed)) return false;
  return events.includes('*') || events.includes(type);
}

// The webhook URL's rules live in webhook-url.ts; re-exported here, where callers look for them.
export { isLoopbackHost, WEBHOOK_URL_PATTERN, webhookUrl, webhookUrlProblem } from './webhook-url.js';

export const webhookEventSelector = z
  .string()
  .refine((v) => v === '*' || v in EVENT_SCOPES, { message: 'Tipo de evento desconocido.', params: { code: 'unknown_event_type' } })
  .meta({ enum: ['*', ...EVENT_TYPES] });

// spec: Webhook configuration — event types, or ["*"] for all that the permissions allow.
export const webhookEvents = z
  .array(webhookEventSelector)
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .superRefine((events, ctx) => {
    if (events.includes('*') && events.length > 1) {
      ctx.addIssue({ code: 'custom', message: '"*" debe ir solo: ["*"].', params: { code: 'invalid' } });
    }
  })
  .transform((events) => [...new Set(events)])
  // "*" goes alone: no list of two or more that contains it.
  .meta({ not: { contains: { const: '*' }, minItems: 2 }, example: ['order.created', 'order.status_changed'] });

// spec: Endpoints, PUT /webhook — `url`, `events`, optional `active`
export const webhookInput = z.strictObject({
  url: webhookUrl,
  events: webhookEvents,
  active: z.boolean().optional(),
});
export type WebhookInput = z.output<typeof webhookInput>;

/** The panel's PUT /_emulator/integrations/{id}/webhook: every field optional once the webhook exists. */
export const webhookPanelInput = z.strictObject({
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  active: z.boolean().optional(),
});

// spec: Webhook configuration
export const webhook = z.object({
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  paused: z.boolean(),
  paused_reason: z.string().nullable(),
  /** Only in the 201 answer at creation. */
  signing_secret: z.string().optional(),
  created_at: datetimeOut,
  updated_at: datetimeOut,
});
export type Webhook = z.infer<typeof webhook>;

export const rotateSecretResult = z.object({
  signing_secret: z.string().meta({ example: 'whsec_…' }),
  previous_valid_hours: z.int(),
});

export const webhookTestResult = z.object({ queued: z.boolean() });

// spec: Webhook delivery status (the plain list lives in enums.ts, zod-free for the CLI)
export { DELIVERY_STATUSES };
export const deliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatus>;

export const deliveryAttempt = z.object({
  number: z.int().meta({ description: 'Orden del intento en esta entrega, desde 1' }),
  attempted_at: datetimeOut,
  manual: z.boolean().meta({ description: 'Reenvío manual: no cuenta entre los 9 intentos del calendario' }),
  succeeded: z.boolean(),
  response_status: z.int().nullable().meta({ description: 'Código HTTP de la respuesta; null si no hubo respuesta' }),
  error: z.enum(['timeout', 'connection_reset', 'connection_refused', 'connection_error']).nullable(),
  duration_ms: z.int(),
});

// spec: Webhook delivery record — `dlv_` id, recent attempts, status.
export const deliveryRecord = z.object({
  id: id('delivery'),
  event_id: id('event'),
  event_type: z.string(),
  status: deliveryStatus,
  attempt_count: z.int().meta({ description: 'Intentos del calendario hechos (máximo 9)' }),
  attempts: z.array(deliveryAttempt),
  next_attempt_at: datetimeOut.nullable(),
  created_at: datetimeOut,
  updated_at: datetimeOut,
});
export type DeliveryRecord = z.infer<typeof deliveryRecord>;

export const deliveriesQuery = z.strictObject({
  status: deliveryStatus.optional(),
  limit: pageLimit.default(LIMITS.listPageDefault),
});

// DESIGN: delivery chaos for testing receivers.
export const webhookChaos = z.strictObject({
  duplicate_rate: z.number().min(0).max(1).default(0),
  reorder: z.boolean().default(false),
  delay_ms: z.int().min(0).max(60_000).default(0),
});
export type WebhookChaos = z.output<typeof webhookChaos>;

export const drainResult = z.object({ attempted: z.int(), succeeded: z.int(), failed: z.int() });
