import type { Category, Product } from '../../../../contract/catalog.js';
import { CATALOG_FORMAT, CATALOG_VERSION } from './model.js';

/** A category or product as the file holds it: `external_id` first, then its input fields. */
export type FileCategory = Record<string, unknown> & { external_id: string };
export type FileProduct = Record<string, unknown> & { external_id: string; category_external_id: string };

export interface CatalogDocument {
  format: typeof CATALOG_FORMAT;
  version: typeof CATALOG_VERSION;
  categories: FileCategory[];
  products: FileProduct[];
}

export interface Skipped {
  /** Items made in the merchant's panel have no `external_id`: a file cannot name them. */
  categories: number;
  products: number;
}

const byPosition = <T extends { position: number | null; external_id: string | null }>(a: T, b: T) =>
  (a.position ?? Infinity) - (b.position ?? Infinity) || String(a.external_id).localeCompare(String(b.external_id));

/**
 * The store's catalog as the file format: categories by position, products by category then
 * position. Only the input fields are kept (ids, timestamps and `source_updated_at` belong to the
 * source store), and `image_url` is the URL the integration asked for.
 */
export function catalogDocument(categories: Category[], products: Product[]): { doc: CatalogDocument; skipped: Skipped } {
  const linkedCategories = categories.filter((c) => c.external_id !== null).sort(byPosition);
  const order = new Map(linkedCategories.map((c, i) => [c.external_id, i]));
  const linkedProducts = products
    .filter((p) => p.external_id !== null && p.category_external_id !== null && order.has(p.category_external_id))
    .sort((a, b) => order.get(a.category_external_id)! - order.get(b.category_external_id)! || byPosition(a, b));
  return {
    doc: {
      format: CATALOG_FORMAT,
      version: CATALOG_VERSION,
      categories: linkedCategories.map(categoryEntry),
      products: linkedProducts.map(productEntry),
    },
    skipped: { categories: categories.length - linkedCategories.length, products: products.length - linkedProducts.length },
  };
}

function categoryEntry(c: Category): FileCategory {
  return withoutNull({ external_id: c.external_id!, name: c.name, position: c.position, active: c.active }) as FileCategory;
}

function productEntry(p: Product): FileProduct {
  return withoutNull({
    external_id: p.external_id!,
    name: p.name,
    category_external_id: p.category_external_id!,
    price: p.price,
    description: p.description,
    sku: p.sku,
    position: p.position,
    active: p.active,
    available: p.available,
    image_url: p.image.requested_url,
    option_groups: p.option_groups.map((g) => ({
      external_id: g.external_id,
      name: g.name,
      min_select: g.min_select,
      max_select: g.max_select,
      options: g.options.map((o) => ({ external_id: o.external_id, name: o.name, price: o.price, available: o.available })),
    })),
  }) as FileProduct;
}

function withoutNull(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/** The JSON file's text: two-space indentation, so that a catalog under version control diffs well. */
export function jsonText(doc: CatalogDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
