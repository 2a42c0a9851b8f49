import { z } from 'zod';
import { amount, externalId, id } from './common.js';
import { LIMITS } from './limits.js';

// The emulator's control API plays the merchant panel (DESIGN: panel products and photos).
const photoUrl = z.string().max(LIMITS.text.imageUrl).regex(/^https?:\/\/[^\s/?#]+[^\s]*$/i);

/** POST /_emulator/stores/{store_id}/products — a product made in the panel (external_id null). */
export const panelProductInput = z
  .strictObject({
    name: z.string().min(1).max(LIMITS.text.productName),
    price: amount,
    // One way to name the category; none: the panel's "Otros" category (made when missing).
    category_id: id('category').optional(),
    category_external_id: externalId.optional(),
    category_name: z.string().min(1).max(LIMITS.text.categoryName).optional(),
    description: z.string().max(LIMITS.text.description).optional(),
    active: z.boolean().default(true),
    available: z.boolean().default(true),
    photo_url: photoUrl.optional(),
  })
  .superRefine((p, ctx) => {
    const given = [p.category_id, p.category_external_id, p.category_name].filter((v) => v !== undefined);
    if (given.length > 1) {
      ctx.addIssue({
        code: 'custom', path: ['category_id'], params: { code: 'invalid' },
        message: 'Indique solo uno de category_id, category_external_id o category_name.',
      });
    }
  });
export type PanelProductInput = z.input<typeof panelProductInput>;

/** PATCH /_emulator/products/{product_id} — `photo_url: null` clears the panel photo. */
export const panelProductPatch = z.strictObject({
  name: z.string().min(1).max(LIMITS.text.productName).optional(),
  price: amount.optional(),
  active: z.boolean().optional(),
  available: z.boolean().optional(),
  photo_url: photoUrl.nullable().optional(),
});
export type PanelProductPatch = z.input<typeof panelProductPatch>;
