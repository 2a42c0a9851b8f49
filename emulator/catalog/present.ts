import type { Category, Product } from '../../src/contract/catalog.js';
import { formatAmount } from '../../src/contract/amounts.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';
import type { CatalogRepository, CategoryRecord, OptionGroupRecord, OptionRecord, ProductView } from './repository.js';

// How the API shows the catalog (spec: Resources, Category and Product).

export function presentCategory(c: CategoryRecord): Category {
  return {
    id: c.id,
    external_id: c.externalId,
    name: c.name,
    position: c.position,
    active: c.active,
    source_updated_at: formatNullableDate(c.sourceUpdatedAt),
    created_at: formatDate(c.createdAt),
    updated_at: formatDate(c.updatedAt),
  };
}

/** Products with their option groups: one read for the groups and one for the options of the whole list. */
export async function presentProducts(catalog: CatalogRepository, views: ProductView[]): Promise<Product[]> {
  if (views.length === 0) return [];
  const ids = views.map((v) => v.id);
  const groups = groupBy(await catalog.groupsOfProducts(ids), (g) => g.productId);
  const options = groupBy(await catalog.optionsOfProducts(ids), (o) => o.groupId);
  return views.map((view) => presentProduct(view, groups.get(view.id) ?? [], options));
}

/** One product by id (any store), or undefined. */
export async function presentProductById(catalog: CatalogRepository, productId: string): Promise<Product | undefined> {
  const view = await catalog.productViewById(productId);
  return view ? (await presentProducts(catalog, [view]))[0] : undefined;
}

export function presentProduct(p: ProductView, groups: OptionGroupRecord[], options: Map<string, OptionRecord[]>): Product {
  return {
    id: p.id,
    external_id: p.externalId,
    category_external_id: p.categoryExternalId,
    category_id: p.categoryId,
    name: p.name,
    price: formatAmount(p.price),
    description: p.description,
    sku: p.sku,
    active: p.active,
    available: p.available,
    position: p.position,
    image_url: p.photoUrl,
    image: { status: p.imageStatus, source: p.photoSource, requested_url: p.imageRequestedUrl, error: p.imageError },
    option_groups: presentGroups(groups, options),
    source_updated_at: formatNullableDate(p.sourceUpdatedAt),
    created_at: formatDate(p.createdAt),
    updated_at: formatDate(p.updatedAt),
  };
}

/** A product's option groups, each with its options (by group id), in stored order. */
export function presentGroups(groups: OptionGroupRecord[], options: Map<string, OptionRecord[]>): Product['option_groups'] {
  return groups.map((g) => ({
    id: g.id,
    external_id: g.externalId,
    name: g.name,
    min_select: g.minSelect,
    max_select: g.maxSelect,
    options: (options.get(g.id) ?? []).map((o) => ({
      id: o.id, external_id: o.externalId, name: o.name, price: formatAmount(o.price), available: o.available,
    })),
  }));
}

export function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}
