import { z } from 'zod';
import { batchOperationError } from './error-body.js';
import { amount, amountOut, cursor, datetime, datetimeOut, externalId, id, position, queryBoolean, pageLimit, requiredText } from './common.js';
import { documentedAs } from './documented.js';
import { LIMITS } from './limits.js';

// spec: Resources, Category — input fields
export const categoryInput = z.strictObject({
  name: requiredText(LIMITS.text.categoryName),
  position: position.optional(),
  active: z.boolean().default(true),
  source_updated_at: datetime.optional(),
});
export type CategoryInput = z.output<typeof categoryInput>;

export const category = z.object({
  id: id('category'),
  external_id: z.string().nullable(),
  name: z.string(),
  position: z.int().nullable(),
  active: z.boolean(),
  source_updated_at: datetimeOut.nullable(),
  created_at: datetimeOut,
  updated_at: datetimeOut,
});
export type Category = z.infer<typeof category>;

// spec: Resources, Product — option and option group
export const optionInput = z.strictObject({
  external_id: externalId,
  name: requiredText(LIMITS.text.productName),
  price: amount.default('0'),
  available: z.boolean().default(true),
});

export const optionGroupInput = z
  .strictObject({
    external_id: externalId,
    name: requiredText(LIMITS.text.productName),
    // spec: Limits, numeric bounds — min_select 0 to 50; max_select 1 to 50
    min_select: z.int().min(LIMITS.bounds.minSelect[0]).max(LIMITS.bounds.minSelect[1]).default(0),
    max_select: z.int().min(LIMITS.bounds.maxSelect[0]).max(LIMITS.bounds.maxSelect[1]).default(1),
    // spec: Limits — 50 options per group
    options: z.array(optionInput).max(LIMITS.optionsPerGroup).default([]),
  })
  .superRefine((group, ctx) => {
    if (group.min_select > group.max_select) {
      ctx.addIssue({ code: 'custom', path: ['min_select'], message: 'min_select no puede ser mayor que max_select.', params: { code: 'invalid' } });
    }
    const seen = new Set<string>();
    group.options.forEach((option, i) => {
      if (seen.has(option.external_id)) {
        ctx.addIssue({ code: 'custom', path: ['options', i, 'external_id'], message: 'Código de opción repetido en el producto.', params: { code: 'duplicate' } });
      }
      seen.add(option.external_id);
    });
  });

// Without the `i` flag (the OpenAPI document shows the pattern, and JSON Schema patterns take no flags).
const IMAGE_URL = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]+\S*$/;

/** An absolute http(s) URL that parses (WHATWG URL): a host, a valid port, nothing left half-open. */
export function isImageUrl(text: string): boolean {
  if (!IMAGE_URL.test(text) || !URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

// spec: Resources, Product — image_url, an http(s) URL of at most 500 characters.
const imageUrl = z
  .string()
  .max(LIMITS.text.imageUrl)
  .refine((v) => v.length > LIMITS.text.imageUrl || isImageUrl(v), { message: 'Debe ser una URL http(s) válida.', params: { code: 'invalid' } })
  .meta({ format: 'uri', pattern: IMAGE_URL.source, description: 'URL http(s) de la imagen', example: 'https://cdn.example.com/cola.png' });

// spec: Resources, Product — input fields
export const productInput = z
  .strictObject({
    name: requiredText(LIMITS.text.productName),
    category_external_id: externalId,
    price: amount,
    description: z.string().max(LIMITS.text.description).optional(),
    sku: z.string().max(LIMITS.text.sku).optional(),
    active: z.boolean().default(true),
    available: z.boolean().default(true),
    position: position.optional(),
    image_url: imageUrl.optional(),
    image_mode: z.enum(['replace', 'if_empty']).default('replace'),
    // spec: Limits — 20 option groups per product
    option_groups: z.array(optionGroupInput).max(LIMITS.optionGroupsPerProduct).default([]),
    source_updated_at: datetime.optional(),
  })
  .superRefine((product, ctx) => {
    const groups = new Set<string>();
    const options = new Set<string>();
    product.option_groups.forEach((group, g) => {
      if (groups.has(group.external_id)) {
        ctx.addIssue({ code: 'custom', path: ['option_groups', g, 'external_id'], message: 'Código de grupo repetido en el producto.', params: { code: 'duplicate' } });
      }
      groups.add(group.external_id);
      group.options.forEach((option, o) => {
        if (options.has(option.external_id) && !group.options.slice(0, o).some((x) => x.external_id === option.external_id)) {
          ctx.addIssue({ code: 'custom', path: ['option_groups', g, 'options', o, 'external_id'], message: 'Código de opción repetido en el producto.', params: { code: 'duplicate' } });
        }
        options.add(option.external_id);
      });
    });
  });
export type ProductInput = z.output<typeof productInput>;

/**
 * Query of the single PUT /catalog/products/{external_id}: `link_to_id` links an existing product
 * without code (made in the panel) to this external code, as the batch operation's `link_to_id` does.
 * A documented addition: the spec names the field for the batch only.
 */
export const productPutQuery = z.strictObject({
  link_to_id: id('product').optional().meta({ description: 'Id prd_ de un producto sin código externo que se vincula a este código' }),
});
export type OptionGroupInput = z.output<typeof optionGroupInput>;

// spec: Endpoints, PATCH /catalog/products — price, available, active, source_updated_at; at least one of the first three
export const productPatch = z
  .strictObject({
    price: amount.optional(),
    available: z.boolean().optional(),
    active: z.boolean().optional(),
    source_updated_at: datetime.optional(),
  })
  .superRefine((p, ctx) => {
    if (p.price === undefined && p.available === undefined && p.active === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Indique al menos uno de price, available o active.', params: { code: 'required' } });
    }
  })
  // The refine above, as JSON Schema says it. The `anyOf` of bare `required` lists sits inside an
  // `allOf`: beside `properties`, code generators read it as the type itself and lose the properties
  // (`unknown`); inside `allOf` it only adds a constraint to the object.
  .meta({ minProperties: 1, allOf: [{ anyOf: [{ required: ['price'] }, { required: ['available'] }, { required: ['active'] }] }] });
export type ProductPatch = z.output<typeof productPatch>;

// spec: Endpoints, PATCH /catalog/options — price and/or available
export const optionPatch = z
  .strictObject({ price: amount.optional(), available: z.boolean().optional() })
  .superRefine((p, ctx) => {
    if (p.price === undefined && p.available === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Indique price, available o ambos.', params: { code: 'required' } });
    }
  })
  .meta({ minProperties: 1 });
export type OptionPatch = z.output<typeof optionPatch>;

export const option = z.object({
  id: id('option'),
  external_id: z.string().nullable(),
  name: z.string(),
  price: amountOut,
  available: z.boolean(),
});

export const optionGroup = z.object({
  id: id('optionGroup'),
  external_id: z.string().nullable(),
  name: z.string(),
  min_select: z.int(),
  max_select: z.int(),
  options: z.array(option),
});

export const productImage = z.object({
  status: z.enum(['none', 'pending', 'ready', 'rejected']),
  source: z.enum(['integration', 'panel']).nullable(),
  requested_url: z.string().nullable(),
  error: z.string().nullable(),
});

export const product = z.object({
  id: id('product'),
  external_id: z.string().nullable(),
  category_external_id: z.string().nullable(),
  category_id: id('category'),
  name: z.string(),
  price: amountOut,
  description: z.string().nullable(),
  sku: z.string().nullable(),
  active: z.boolean(),
  available: z.boolean(),
  position: z.int().nullable(),
  image_url: z.string().nullable(),
  image: productImage,
  option_groups: z.array(optionGroup),
  source_updated_at: datetimeOut.nullable(),
  created_at: datetimeOut,
  updated_at: datetimeOut,
});
export type Product = z.infer<typeof product>;

export const UPSERT_RESULTS = ['created', 'updated', 'unchanged', 'ignored_stale'] as const;
// spec: Resources, Upsert result
export const upsertResult = z.object({
  id: z.string(),
  external_id: z.string(),
  result: z.enum(UPSERT_RESULTS),
});
export type UpsertResult = z.infer<typeof upsertResult>;

// spec: Endpoints, GET /catalog/categories and GET /catalog/products
export const categoryListQuery = z.strictObject({
  updated_since: datetime.optional(),
  cursor: cursor.optional(),
  limit: pageLimit.optional(),
});
export const productListQuery = z.strictObject({
  category_external_id: externalId.optional(),
  active: queryBoolean.optional(),
  updated_since: datetime.optional(),
  cursor: cursor.optional(),
  limit: pageLimit.optional(),
});

// spec: Batch request and response
export const BATCH_OPS = ['upsert_category', 'deactivate_category', 'upsert_product', 'patch_product', 'deactivate_product', 'patch_option'] as const;
export const batchOperation = z.strictObject({
  op: z.string(),
  external_id: z.unknown(),
  data: z.unknown().optional(),
  link_to_id: z.unknown().optional(),
});
export const batchOperationTyped = z.strictObject({
  op: z.enum(BATCH_OPS),
  external_id: externalId,
  data: z.unknown().optional(),
  link_to_id: id('product').optional(),
});
/**
 * Each operation as the spec describes it, built from the schemas the operations apply; for the
 * OpenAPI document only (see `batchRequest`).
 */
export const batchOperationByOp = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('upsert_category'), external_id: externalId, data: categoryInput }),
  z.strictObject({ op: z.literal('deactivate_category'), external_id: externalId }),
  z.strictObject({ op: z.literal('upsert_product'), external_id: externalId, data: productInput, link_to_id: id('product').optional() }),
  z.strictObject({ op: z.literal('patch_product'), external_id: externalId, data: productPatch }),
  z.strictObject({ op: z.literal('deactivate_product'), external_id: externalId }),
  z.strictObject({ op: z.literal('patch_option'), external_id: externalId, data: optionPatch }),
]);
/**
 * spec: Full snapshot rules, as `readSnapshotRequest` (emulator/catalog/snapshot.ts) applies them,
 * said in JSON Schema for the document: the snapshot fields only with `full_snapshot: true`;
 * `snapshot_id` asks for `snapshot_part`; without `snapshot_id` the snapshot has one part (part 1,
 * the last).
 */
const SNAPSHOT_FIELD_RULES = {
  dependentRequired: { snapshot_id: ['full_snapshot', 'snapshot_part'], snapshot_part: ['full_snapshot'], snapshot_last: ['full_snapshot'] },
  allOf: [
    { if: { required: ['full_snapshot'], properties: { full_snapshot: { const: false } } }, then: { properties: { snapshot_id: false, snapshot_part: false, snapshot_last: false } } },
    { if: { not: { required: ['snapshot_id'] } }, then: { properties: { snapshot_part: { const: 1 }, snapshot_last: { const: true } } } },
  ],
};
export const batchRequest = z.strictObject({
  // Any item passes here: each operation is read on its own (emulator/catalog/batch.ts), so one
  // bad operation fails only itself. The document shows the items as `batchOperationByOp`.
  // More than 500 is a 413 answered before this schema runs (emulator/catalog/batch-run.ts); the
  // bound is here for the document.
  // An empty list is a 422 of its own (`too_small`, emulator/catalog/batch-run.ts): `minItems` says it here.
  operations: z.array(documentedAs(z.unknown(), batchOperationByOp)).max(LIMITS.batchOperations).meta({ minItems: 1 }),
  full_snapshot: z.boolean().default(false),
  snapshot_id: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/).optional(),
  snapshot_part: z.int().min(1).max(10_000).optional(),
  snapshot_last: z.boolean().optional(),
}).meta(SNAPSHOT_FIELD_RULES);
export type BatchRequest = z.output<typeof batchRequest>;

export const batchResultItem = z.object({
  index: z.int(),
  external_id: z.string().nullable(),
  result: z.enum([...UPSERT_RESULTS, 'error']),
  id: z.string().nullable(),
  error: batchOperationError.optional(),
});
export type BatchResultItem = z.infer<typeof batchResultItem>;

export const snapshotStatus = z.object({
  snapshot_id: z.string(),
  part: z.int(),
  status: z.enum(['open', 'completed', 'expired']),
  deactivated: z.int(),
  reason: z.string().nullable(),
});

export const batchResponse = z.object({
  summary: z.object({ total: z.int(), succeeded: z.int(), failed: z.int() }),
  results: z.array(batchResultItem),
  sync_run_id: id('syncRun'),
  snapshot: snapshotStatus.optional(),
});
export type BatchResponse = z.infer<typeof batchResponse>;
