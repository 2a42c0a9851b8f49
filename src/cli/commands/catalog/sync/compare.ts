import { parseAmount } from '../../../../contract/amounts.js';
import type { Category, Product } from '../../../../contract/catalog.js';
import type { CategoryItem, ProductItem } from '../file/model.js';

// What a PUT of the file's item would change in the stored item, field by field, with the API's own
// rules for omitted fields: an omitted `position` keeps the stored one, an omitted `image_url` never
// removes the photo, and amounts compare by value ("7000.5" is "7000.50").

const amount = (text: string) => {
  try {
    return parseAmount(text);
  } catch {
    return text;
  }
};

/** The fields of a category that a PUT would change. */
export function categoryChanges(item: CategoryItem, stored: Category): string[] {
  const d = item.data;
  const changed: string[] = [];
  if (d.name !== stored.name) changed.push('name');
  if (d.position !== undefined && d.position !== stored.position) changed.push('position');
  if (d.active !== stored.active) changed.push('active');
  return changed;
}

/** The fields of a product that a PUT would change. */
export function productChanges(item: ProductItem, stored: Product): string[] {
  const d = item.data;
  const changed: string[] = [];
  const check = (field: string, same: boolean) => {
    if (!same) changed.push(field);
  };
  check('name', d.name === stored.name);
  check('category_external_id', d.category_external_id === stored.category_external_id);
  check('price', amount(d.price) === amount(stored.price));
  check('description', (d.description ?? null) === stored.description);
  check('sku', (d.sku ?? null) === stored.sku);
  check('active', d.active === stored.active);
  check('available', d.available === stored.available);
  if (d.position !== undefined) check('position', d.position === stored.position);
  if (d.image_url !== undefined && !(d.image_mode === 'if_empty' && stored.image_url !== null)) {
    check('image_url', d.image_url === stored.image.requested_url);
  }
  check('option_groups', JSON.stringify(groupsOf(d.option_groups)) === JSON.stringify(groupsOf(stored.option_groups)));
  return changed;
}

interface GroupLike {
  external_id: string | null;
  name: string;
  min_select: number;
  max_select: number;
  options: { external_id: string | null; name: string; price: string; available: boolean }[];
}

/** Option groups in one shape for comparison, in their order (the menu shows them so). */
function groupsOf(groups: readonly GroupLike[]): unknown {
  return groups.map((g) => [g.external_id, g.name, g.min_select, g.max_select, g.options.map((o) => [o.external_id, o.name, amount(o.price), o.available])]);
}
