import { z } from 'zod';
import { HOMOLOGATION_TIMEOUT, LIMITS, REQUEST_LOG_SIZE } from './limits.js';
import { datetimeOut, queryInt } from './common.js';
import {
  ENVIRONMENTS,
  fulfillmentType,
  integrationSettingsPatch,
  paymentMethod,
  scope,
} from './store.js';

// DESIGN: Emulator contract, control API under /_emulator — the merchant panel and the sandbox tools.
// Same rules as the API: unknown fields are 422, every problem is a `details` entry.

/** A list without repeats (scopes, fulfillment types). */
const uniqueList = <T extends z.ZodType>(item: T) =>
  z.array(item).refine((list) => new Set(list.map((v) => JSON.stringify(v))).size === list.length, {
    message: 'La lista no puede repetir valores.',
    params: { code: 'duplicate' },
  });

// Panel-made slugs: lower-case words joined by hyphens, as the service shows them in store URLs.
const slug = z.string().min(1).max(60).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/);

/** POST /_emulator/stores — DESIGN: all scopes and `catalog_mode: erp_managed` unless told otherwise. */
export const controlStoreCreate = z.strictObject({
  environment: z.enum(ENVIRONMENTS),
  name: z.string().min(1).max(120).optional(),
  slug: slug.optional(),
  scopes: uniqueList(scope).optional(),
  settings: integrationSettingsPatch.optional(),
});
export type ControlStoreCreate = z.output<typeof controlStoreCreate>;

/** PATCH /_emulator/stores/{store_id} — the merchant's switch, suspension, payment and fulfillment. */
export const controlStorePatch = z.strictObject({
  accepting_orders: z.boolean().optional(),
  suspended: z.boolean().optional(),
  payment_methods: z
    .array(paymentMethod)
    .min(1)
    .refine((list) => new Set(list.map((m) => m.code)).size === list.length, {
      message: 'Los códigos de medio de pago no pueden repetirse.',
      params: { code: 'duplicate' },
    })
    .optional(),
  fulfillment_types: uniqueList(fulfillmentType).min(1).optional(),
});
export type ControlStorePatch = z.output<typeof controlStorePatch>;

/** PATCH /_emulator/integrations/{integration_id} — `settings` is merged into the current ones. */
export const controlIntegrationPatch = z.strictObject({
  scopes: uniqueList(scope).optional(),
  settings: integrationSettingsPatch.optional(),
  status: z.enum(['active', 'suspended']).optional(),
});
export type ControlIntegrationPatch = z.output<typeof controlIntegrationPatch>;

// spec: Authentication 8 and Limits — credential overlap default 24 h, range 0 to 72
export const controlCredentialRotate = z.strictObject({
  overlap_hours: z
    .int()
    .min(0)
    .max(LIMITS.credentialOverlapMaxHours)
    .default(LIMITS.credentialOverlapDefaultHours),
});

/** The emulator's clock: system time plus an offset, or manual (moves only when told). */
export const CLOCK_MODES = ['system', 'manual'] as const;
export type ClockMode = (typeof CLOCK_MODES)[number];

/** A warning on a store in `GET /_emulator/state` (DESIGN: the panel's alerts). */
export type StoreAlert =
  | { type: 'ack_overdue'; order_id: string; number: number; waiting_since: string; minutes_waiting: number; ack_alert_minutes: number }
  | { type: 'import_failed'; order_id: string; number: number; code: string; message: string; retryable: boolean; at: string };

/** POST /_emulator/clock/advance — the emulator's time only moves forward. */
export const controlClockAdvance = z.strictObject({
  seconds: z.int().min(0).max(100 * 365 * 24 * 3600),
});

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * POST /_emulator/faults — DESIGN: `path` is a glob over the full path, `times` defaults to 1, `code`
 * defaults to the spec's code for the status. A fault with only `delay_ms` slows calls down and lets them run.
 */
export const controlFault = z
  .strictObject({
    method: z
      .string()
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(HTTP_METHODS))
      .optional(),
    path: z.string().min(1).max(500).regex(/^\//),
    status: z.int().min(400).max(599).optional(),
    code: z.string().min(1).max(64).regex(/^[a-z][a-z0-9_]*$/).optional(),
    retry_after: z.int().min(0).max(86_400).optional(),
    delay_ms: z.int().min(0).max(60_000).optional(),
    times: z.int().min(1).max(100_000).default(1),
  })
  .superRefine((f, ctx) => {
    if (f.status === undefined && f.delay_ms === undefined) {
      ctx.addIssue({ code: 'custom', path: ['status'], params: { code: 'required' }, message: 'Indique status, delay_ms o ambos.' });
    }
    if (f.status === undefined && (f.code !== undefined || f.retry_after !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['status'], params: { code: 'required' }, message: 'code y retry_after requieren status.' });
    }
  });
export type ControlFault = z.output<typeof controlFault>;

// In limits.ts, zod-free, so that the CLI's --help can show the default without loading zod.
export { HOMOLOGATION_TIMEOUT };

/** POST /_emulator/homologation/{integration_id}/start — a session that watches up to `timeout_seconds`. */
export const controlHomologationStart = z.strictObject({
  timeout_seconds: z.int().min(HOMOLOGATION_TIMEOUT.min).max(HOMOLOGATION_TIMEOUT.max).optional(),
});

/** BENCH-ONLY: POST /_emulator/homologation/recorder switches the call recorder off and on to measure its cost. */
export const controlHomologationRecorder = z.strictObject({ enabled: z.boolean() });

// In limits.ts, zod-free, so that `emulator logs tail --help` can show it.
export { REQUEST_LOG_SIZE };

/** A status filter item: an exact status (`409`) or a class (`4xx`). */
const STATUS_FILTER_ITEM = /^[1-5]([0-9]{2}|xx)$/;

/**
 * GET /_emulator/logs — the request log (`emulator logs tail`). `after` pages forward from an entry id,
 * `tail` asks for the newest matching entries instead; `wait_ms` holds the request open until a new
 * entry arrives (long poll). `status` lists exact statuses and classes (`4xx,409`), `path` is a glob
 * over the full path like a fault's.
 */
export const controlLogsQuery = z
  .strictObject({
    after: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
    tail: queryInt(0, REQUEST_LOG_SIZE).optional(),
    limit: queryInt(1, REQUEST_LOG_SIZE).default(100),
    status: z
      .string()
      .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()))
      .pipe(z.array(z.string().regex(STATUS_FILTER_ITEM, 'Use un estado (409) o una clase (4xx).')).min(1))
      .optional(),
    path: z.string().min(1).max(500).regex(/^\//).optional(),
    wait_ms: queryInt(0, 30_000).default(0),
  })
  .superRefine((q, ctx) => {
    if (q.after !== undefined && q.tail !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['tail'], params: { code: 'invalid' }, message: 'Indique after o tail, no ambos.' });
    }
  });
export type ControlLogsQuery = z.output<typeof controlLogsQuery>;

/** One API request of the log: what was asked and answered, never a body, a header or a secret. */
export const requestLogEntry = z.object({
  /** Increases by one per request; the `after` of the next page. */
  id: z.int(),
  /** When it was answered, on the emulator's clock. */
  time: datetimeOut,
  environment: z.enum(ENVIRONMENTS),
  method: z.string(),
  /** The full path without the query string. */
  path: z.string(),
  status: z.int(),
  /** The spec's `error.code` of an error answer. */
  error_code: z.string().nullable(),
  request_id: z.string(),
  /** Real time from the request's arrival to its answer. */
  duration_ms: z.number(),
  /** The credential's integration and store; null when none was accepted. */
  integration_id: z.string().nullable(),
  store_id: z.string().nullable(),
});
export type RequestLogEntry = z.output<typeof requestLogEntry>;

/** GET /_emulator/logs — `next_after` is the id to pass next time; `missed` counts entries that left the log before they were read. */
export const requestLogPage = z.object({
  entries: z.array(requestLogEntry),
  next_after: z.int(),
  missed: z.int(),
});
export type RequestLogPage = z.output<typeof requestLogPage>;
