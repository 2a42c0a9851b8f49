import type { Category, Product } from '../../../../contract/catalog.js';
import type { CatalogItems, CategoryItem, ProductItem, Where } from '../file/model.js';
import { categoryChanges, productChanges } from './compare.js';
import type { StoreState } from './remote.js';

export type Change = 'created' | 'updated' | 'unchanged';

/** One batch operation with the file row it came from. */
export interface PlannedOp {
  op: 'upsert_category' | 'upsert_product';
  external_id: string;
  data: CategoryItem['data'] | ProductItem['data'];
  where: Where;
  change: Change;
  /** Fields that differ from the store (for `updated`). */
  fields: string[];
}

export interface Codes {
  categories: string[];
  products: string[];
}

export interface SyncPlan {
  fullSnapshot: boolean;
  /** In the order to send: active categories, products, then inactive categories (after their products). */
  ops: PlannedOp[];
  created: Codes;
  updated: Codes;
  unchanged: Codes;
  /** Linked items the full snapshot will deactivate (only with missing_items_policy `deactivate`). */
  deactivated: Codes;
  /** Linked items of the store that the file does not have and that stay as they are. */
  notInFile: Codes;
}

const codes = (): Codes => ({ categories: [], products: [] });

/**
 * Compares the file with the store. A run without `--full-snapshot` sends only what differs; a full
 * snapshot sends everything (the API needs every item to know what is missing), and what it will
 * deactivate follows the store's `missing_items_policy`.
 */
export function planSync(items: CatalogItems, store: StoreState, fullSnapshot: boolean): SyncPlan {
  const plan: SyncPlan = { fullSnapshot, ops: [], created: codes(), updated: codes(), unchanged: codes(), deactivated: codes(), notInFile: codes() };
  const storedCategories = new Map(store.categories.filter((c) => c.external_id !== null).map((c) => [c.external_id!, c]));
  const storedProducts = new Map((store.products ?? []).filter((p) => p.external_id !== null).map((p) => [p.external_id!, p]));
  const known = store.products !== null;
  const classify = <S>(stored: S | undefined, changes: (s: S) => string[]): { change: Change; fields: string[] } => {
    if (!stored) return { change: 'created', fields: [] };
    const fields = changes(stored);
    return { change: fields.length ? 'updated' : 'unchanged', fields };
  };
  const add = (op: PlannedOp, kind: keyof Codes) => {
    plan[op.change][kind].push(op.external_id);
    if (fullSnapshot || op.change !== 'unchanged') plan.ops.push(op);
  };
  const categoryOp = (c: CategoryItem): PlannedOp => ({
    op: 'upsert_category', external_id: c.external_id, data: c.data, where: c.where,
    ...classify(storedCategories.get(c.external_id), (s: Category) => categoryChanges(c, s)),
  });
  for (const c of items.categories.filter((c) => c.data.active)) add(categoryOp(c), 'categories');
  for (const p of items.products) {
    const stored = storedProducts.get(p.external_id);
    // Not read (a real full snapshot): the API's results say created, updated or unchanged.
    const classified = known ? classify(stored, (s: Product) => productChanges(p, s)) : { change: 'updated' as Change, fields: [] };
    add({ op: 'upsert_product', external_id: p.external_id, data: p.data, where: p.where, ...classified }, 'products');
  }
  for (const c of items.categories.filter((c) => !c.data.active)) add(categoryOp(c), 'categories');
  missing(plan, items, store, fullSnapshot && store.missingItemsPolicy === 'deactivate');
  return plan;
}

/** Linked, active store items that the file lacks: deactivated by the snapshot's policy, or left alone. */
function missing(plan: SyncPlan, items: CatalogItems, store: StoreState, deactivates: boolean): void {
  const fileCategories = new Set(items.categories.map((c) => c.external_id));
  const fileProducts = new Set(items.products.map((p) => p.external_id));
  const target = deactivates ? plan.deactivated : plan.notInFile;
  const products = store.products ?? [];
  const gone = products.filter((p) => p.external_id !== null && p.active && !fileProducts.has(p.external_id));
  target.products.push(...gone.map((p) => p.external_id!));
  // A category keeps active products sent in the file, or made in the panel: the API leaves it active.
  const goneIds = new Set(gone.map((p) => p.id));
  const stillActive = new Set<string>();
  for (const p of products) if (p.active && !(deactivates && goneIds.has(p.id)) && !(p.external_id && fileProducts.has(p.external_id))) stillActive.add(p.category_id);
  const fileActive = new Set(items.products.filter((p) => p.data.active).map((p) => p.data.category_external_id));
  for (const c of store.categories) {
    if (c.external_id === null || !c.active || fileCategories.has(c.external_id)) continue;
    if (deactivates && (stillActive.has(c.id) || fileActive.has(c.external_id))) plan.notInFile.categories.push(c.external_id);
    else target.categories.push(c.external_id);
  }
}
