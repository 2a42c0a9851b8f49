import { z } from 'zod';
import { datetimeOut, id } from './common.js';
import { ENVIRONMENTS, FULFILLMENT_TYPES } from './enums.js';
import { LIMITS } from './limits.js';

export const SCOPES = [
  'store:read',
  'store:write',
  'catalog:read',
  'catalog:write',
  'orders:read',
  'orders:write',
  'webhooks:manage',
] as const;
export const scope = z.enum(SCOPES);
export type Scope = z.infer<typeof scope>;

// The plain list lives in enums.ts (zod-free, for the CLI's --help); re-exported here.
export { FULFILLMENT_TYPES };
export const fulfillmentType = z.enum(FULFILLMENT_TYPES);

export const BASE_PAYMENT_CODES = ['cash', 'bank_transfer', 'card_on_delivery', 'qr', 'other'] as const;
export const paymentMethod = z.strictObject({
  code: z.string().regex(/^(cash|bank_transfer|card_on_delivery|qr|other|custom_[a-z0-9_]{1,40})$/),
  name: z.string().min(1).max(60),
});
export type PaymentMethod = z.infer<typeof paymentMethod>;

// spec: Resources, Store
export const store = z.object({
  id: id('store'),
  slug: z.string(),
  name: z.string(),
  timezone: z.literal('America/Asuncion'),
  currency: z.literal('PYG'),
  accepting_orders: z.boolean(),
  fulfillment_types: z.array(fulfillmentType),
  payment_methods: z.array(paymentMethod),
});
export type Store = z.infer<typeof store>;

// spec: Endpoints, PATCH /store — `{accepting_orders: boolean}`; no other field accepted
export const storePatch = z.strictObject({ accepting_orders: z.boolean() });

// spec: Resources, Integration settings
export const integrationSettings = z.strictObject({
  catalog_mode: z.enum(['manual', 'erp_managed']).default('manual'),
  order_status_authority: z.enum(['both', 'erp', 'service']).default('both'),
  missing_items_policy: z.enum(['keep', 'deactivate']).default('keep'),
  ack_expected: z.enum(['on_receipt', 'after_acceptance']).default('on_receipt'),
  ack_alert_minutes: z.int().min(LIMITS.bounds.ackAlertMinutes[0]).max(LIMITS.bounds.ackAlertMinutes[1]).default(5),
});
export type IntegrationSettings = z.output<typeof integrationSettings>;
// Without the defaults: zod 4 fills defaults even inside `.partial()`, and a patch must not reset
// the settings it does not name.
export const integrationSettingsPatch = z.strictObject({
  catalog_mode: integrationSettings.shape.catalog_mode.removeDefault().optional(),
  order_status_authority: integrationSettings.shape.order_status_authority.removeDefault().optional(),
  missing_items_policy: integrationSettings.shape.missing_items_policy.removeDefault().optional(),
  ack_expected: integrationSettings.shape.ack_expected.removeDefault().optional(),
  ack_alert_minutes: integrationSettings.shape.ack_alert_minutes.removeDefault().optional(),
});
export type IntegrationSettingsPatch = z.output<typeof integrationSettingsPatch>;

export const INTEGRATION_STATUSES = ['inactive', 'active', 'suspended'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];
// The plain list lives in enums.ts (zod-free, for the CLI's --help); re-exported here.
export { ENVIRONMENTS };
export type Environment = (typeof ENVIRONMENTS)[number];

// spec: Resources, Integration context (GET /me)
export const meContext = z.object({
  integration: z.object({
    id: id('integration'),
    system: z.string(),
    status: z.enum(INTEGRATION_STATUSES),
    scopes: z.array(scope),
    settings: integrationSettings,
    environment: z.enum(ENVIRONMENTS),
    credential: z.object({ key_id: z.string(), expires_at: datetimeOut.nullable() }),
  }),
  store: z.object({ id: id('store'), slug: z.string(), name: z.string() }),
  api_version: z.literal('1.0'),
});
export type MeContext = z.infer<typeof meContext>;
