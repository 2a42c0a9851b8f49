import type { CatalogItems, Where } from '../file/model.js';
import type { SyncPlan } from './plan.js';
import type { StoreState } from './remote.js';

/** A category the sync would create although the store has one of the same name under another code. */
export interface SimilarCategory {
  where: Where;
  external_id: string;
  name: string;
  /** The store's category of that name: its code (null when made in the panel) and id. */
  existing: { id: string; external_id: string | null; name: string };
}

/** A name as people compare names: without accents, letter case or repeated spaces ("Empanadas " = "empanadas"). */
export function comparableName(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * New categories of the plan whose name the store already has under another code: usually a typo
 * in the code (`EMPANADAS` for `EMP`) that would split the menu into two categories of one name.
 * Warned about, not refused: two categories may share a name on purpose.
 */
export function similarCategories(plan: SyncPlan, items: CatalogItems, store: StoreState): SimilarCategory[] {
  const created = new Set(plan.created.categories);
  const byName = new Map<string, StoreState['categories'][number]>();
  for (const c of store.categories) if (!byName.has(comparableName(c.name))) byName.set(comparableName(c.name), c);
  return items.categories.flatMap((c) => {
    const existing = created.has(c.external_id) ? byName.get(comparableName(c.data.name)) : undefined;
    if (!existing || existing.external_id === c.external_id) return [];
    return [{ where: c.where, external_id: c.external_id, name: c.data.name, existing: { id: existing.id, external_id: existing.external_id, name: existing.name } }];
  });
}

/** `menu.csv:4: row 3 category (EMPANADAS): new category EMPANADAS "Empanadas" has the name of the store's category EMP; did you mean EMP?` */
export function formatSimilar(s: SimilarCategory): string {
  const at = s.where.line === null ? s.where.file : `${s.where.file}:${s.where.line}`;
  const head = `${[at, s.where.label].filter(Boolean).join(': ')}: new category ${s.external_id} "${s.name}"`;
  if (s.existing.external_id === null) {
    return `${head} has the name of a category made in the panel (${s.existing.id}, no external_id): the store would have two "${s.existing.name}"`;
  }
  return `${head} has the name of the store's category ${s.existing.external_id} ("${s.existing.name}"); did you mean ${s.existing.external_id}?`;
}
