import { ok, type Api } from './api.js';

// How the zoo's ERPs publish their menu: the spec allows single endpoints, batches and full
// snapshots in any mix. Products and codes are the zoo's own (`zoo-…`).

/**
 * - mixed: single endpoints, an option's availability and a one-part full snapshot;
 * - batch: batch operations only (a full snapshot, then a patch_product);
 * - single: single endpoints only, no snapshot, no availability change of its own;
 * - one_product: a category and one product whose option group is required (min_select 1), PATCHed;
 * - inactive: a category and a product with options, published inactive (a menu with nothing to order).
 */
export type PublishStyle = 'mixed' | 'batch' | 'single' | 'one_product' | 'inactive';

const CATEGORY = { name: 'Empanadas', position: 1 };
const CARNE = {
  name: 'Empanada de carne',
  category_external_id: 'zoo-empanadas',
  price: '9000',
  option_groups: [{ external_id: 'zoo-salsas', name: 'Salsa', min_select: 0, max_select: 2, options: [{ external_id: 'zoo-picante', name: 'Picante', price: '1000' }] }],
};
const POLLO = { name: 'Empanada de pollo', category_external_id: 'zoo-empanadas', price: '8500' };
const COMBO = {
  name: 'Combo empanadas',
  category_external_id: 'zoo-empanadas',
  price: '25000',
  option_groups: [{ external_id: 'zoo-bebida', name: 'Bebida', min_select: 1, max_select: 1, options: [{ external_id: 'zoo-cocido', name: 'Cocido', price: '0' }, { external_id: 'zoo-mosto', name: 'Mosto', price: '2000' }] }],
};

/** Publishes the menu the style's way; throws when a call is refused (the zoo's ERPs expect their menu to go through). */
export async function publish(api: Api, style: PublishStyle): Promise<void> {
  const must = async (what: string, p: Promise<{ status: number; body: unknown }>) => {
    const a = await p;
    if (!ok(a as never)) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
  };
  if (style === 'batch') {
    const operations = [
      { op: 'upsert_category', external_id: 'zoo-empanadas', data: CATEGORY },
      { op: 'upsert_product', external_id: 'zoo-carne', data: CARNE },
      { op: 'upsert_product', external_id: 'zoo-pollo', data: POLLO },
    ];
    await must('snapshot', api.write('POST', '/catalog/batch', { full_snapshot: true, operations }));
    await must('price', api.write('POST', '/catalog/batch', { operations: [{ op: 'patch_product', external_id: 'zoo-carne', data: { price: '9500' } }] }));
    return;
  }
  await must('category', api.write('PUT', '/catalog/categories/zoo-empanadas', CATEGORY));
  if (style === 'one_product') {
    await must('combo', api.write('PUT', '/catalog/products/zoo-combo', COMBO));
    await must('price', api.write('PATCH', '/catalog/products/zoo-combo', { price: '26000' }));
    return;
  }
  if (style === 'inactive') {
    await must('carne', api.write('PUT', '/catalog/products/zoo-carne', { ...CARNE, active: false }));
    await must('price', api.write('PATCH', '/catalog/products/zoo-carne', { price: '9500', available: true }));
    return;
  }
  await must('carne', api.write('PUT', '/catalog/products/zoo-carne', CARNE));
  await must('pollo', api.write('PUT', '/catalog/products/zoo-pollo', POLLO));
  await must('price', api.write('PATCH', '/catalog/products/zoo-carne', { price: '9500' }));
  if (style === 'single') return;
  await must('option', api.write('PATCH', '/catalog/options/zoo-picante', { available: true }));
  await must('snapshot', api.write('POST', '/catalog/batch', {
    full_snapshot: true,
    operations: [
      { op: 'upsert_category', external_id: 'zoo-empanadas', data: CATEGORY },
      { op: 'upsert_product', external_id: 'zoo-carne', data: { ...CARNE, price: '9500' } },
      { op: 'upsert_product', external_id: 'zoo-pollo', data: POLLO },
    ],
  }));
}

/** Marks a product sold out the style's way (what the person does for mark_unavailable). */
export async function markSoldOut(api: Api, style: PublishStyle, externalId: string): Promise<void> {
  const a = style === 'batch'
    ? await api.write('POST', '/catalog/batch', { operations: [{ op: 'patch_product', external_id: externalId, data: { available: false } }] })
    : await api.write('PATCH', `/catalog/products/${encodeURIComponent(externalId)}`, { available: false });
  if (!ok(a)) throw new Error(`sold out ${externalId}: ${a.status}`);
}
