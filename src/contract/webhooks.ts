import { z } from 'zod';
import { datetimeOut, id, pageLimit } from './common.js';
import { DELIVERY_STATUSES } from './enums.js';
import { LIMITS } from './limits.js';
import { EVENT_SCOPES, EVENT_TYPES, type EventType } from './events.js';
import { IPV4, isLoopbackHost } from './hosts.js';

export { isLoopbackHost };

/** Whether a webhook subscribed to `events` receives an event of `type` under `scopes`. */
export function webhookReceives(events: readonly string[], type: string, scopes: readonly string[]): boolean {
  if (!(type in EVENT_SCOPES)) return false;
  const needed = EVENT_SCOPES[type as EventType];
  if (needed !== null && !scopes.includes(needed)) return false;
  return events.includes('*') || events.includes(type);
}

/**
 * Private, shared, link-local, unspecified ("this network"), multicast and reserved/broadcast
 * addresses: never a "public" URL. Hostnames come from `new URL()`, so IPv4 is already in dotted
 * decimal and IPv6 compressed, lowercase and without leading zeros.
 */
function isPrivateHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  const m = IPV4.exec(h);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return (
      a === 0 || // 0.0.0.0/8 "this network"
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224 // 224.0.0.0/4 multicast, 240.0.0.0/4 reserved, 255.255.255.255 broadcast
    );
  }
  if (h.startsWith('[')) {
    if (h === '[::1]') return false;
    // `::` prefix: unspecified and IPv4-mapped/compatible; fc00::/7 unique local; fe80::/10 link-local; ff00::/8 multicast.
    return /^\[(::|f[cd][0-9a-f]{2}:|fe[89ab][0-9a-f]:|ff[0-9a-f]{2}:)/.test(h);
  }
  return h.endsWith('.local') || h.endsWith('.internal') || !h.includes('.') && h !== 'localhost';
}

/**
 * Why a webhook URL is refused, or null. spec: Webhook configuration — public HTTPS, at most 500
 * characters; the emulator also accepts `http://` to loopback hosts so developers can receive locally.
 */
export function webhookUrlProblem(value: string): { code: string; message: string } | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { code: 'invalid', message: 'Debe ser una URL absoluta válida.' };
  }
  if (url.username || url.password) return { code: 'invalid', message: 'La URL no puede llevar usuario ni contraseña.' };
  if (url.hash) return { code: 'invalid', message: 'La URL no puede llevar fragmento (#).' };
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'https:') {
    if (!loopback && isPrivateHost(url.hostname)) return { code: 'not_public', message: 'La URL debe ser pública (no una dirección privada o interna).' };
    return null;
  }
  if (url.protocol === 'http:' && loopback) return null;
  return { code: 'https_required', message: 'La URL debe usar HTTPS (se admite http:// solo hacia localhost, 127.0.0.0/8 o [::1]).' };
}

// `webhookUrlProblem` and the outbound policy's written-out IPv4 ranges (emulator/net/address-policy.ts)
// as far as a pattern can say them, for the OpenAPI document: http(s) to a loopback host, or https to
// a dotted lowercase host name or address outside the private, shared, link-local, protocol,
// documentation, benchmarking, multicast and reserved IPv4 ranges and not ending in .local or
// .internal; no user, no fragment. A host is a dotted-decimal address, or a name whose last label
// is not a number (the URL parser reads `a.123`, `a.0x1f` and `0300.0250.0.1` as IPv4 addresses, or
// refuses them). (IPv6 literals and the emulator's own port are refused by the emulator only.)
const OCTET = String.raw`(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])`;
const LOOPBACK = String.raw`(?:localhost|127(?:\.${OCTET}){3}|\[::1\])`;
const NOT_PRIVATE =
  String.raw`(?!(?:0|10|127)\.|192\.168\.|169\.254\.|172\.(?:1[6-9]|2[0-9]|3[01])\.|100\.(?:6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\.|(?:22[4-9]|2[3-5][0-9])\.)` +
  String.raw`(?!192\.0\.[02]\.|192\.88\.99\.|198\.1[89]\.|198\.51\.100\.|203\.0\.113\.)` +
  String.raw`(?![^/?#:]*\.(?:local|internal)(?:[:/?]|$))`;
const NAME_END = String.raw`(?=[:/?]|$)`;
const HOST = String.raw`(?:${OCTET}(?:\.${OCTET}){3}${NAME_END}|(?:[a-z0-9-]+\.)+(?!0x[0-9a-f]*${NAME_END})[a-z0-9-]*[a-z][a-z0-9-]*${NAME_END})`;
const PORT = String.raw`(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})`;
const PORT_AND_REST = String.raw`(?::${PORT})?(?:[/?][^#\s]*)?$`;
export const WEBHOOK_URL_PATTERN = new RegExp(
  String.raw`^(?:https?://${LOOPBACK}|https://${NOT_PRIVATE}${HOST})${PORT_AND_REST}`,
);

// spec: Limits, text lengths — webhook url 500
export const webhookUrl = z
  .string()
  .min(1)
  .max(LIMITS.text.webhookUrl)
  .superRefine((value, ctx) => {
    if (value.length > LIMITS.text.webhookUrl) return;
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
  })
  .meta({
    format: 'uri',
    pattern: WEBHOOK_URL_PATTERN.source,
    description: 'URL HTTPS pública (máximo 500); el emulador acepta también http:// hacia loopback',
    example: 'https://erp.example.com/webhooks/merchant',
  });

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
