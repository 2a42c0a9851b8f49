import { CSV_COLUMNS } from './csv-columns.js';
import type { CatalogDocument } from './from-store.js';
import { formatOptionGroups, type CellGroup } from './option-syntax.js';

/** A cell as RFC 4180 writes it: quoted when it holds a comma, semicolon, quote or line break. */
function cell(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",;\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The catalog as CSV, one row per product. A category reaches the CSV through its products, so
 * categories without products are left out: their codes are returned for a warning.
 */
export function csvText(doc: CatalogDocument): { text: string; leftOut: string[] } {
  const categories = new Map(doc.categories.map((c) => [c.external_id, c]));
  const rows = doc.products.map((p) => {
    const c = categories.get(p.category_external_id);
    const values: Record<string, unknown> = {
      ...p,
      category_name: c?.name,
      category_position: c?.position,
      category_active: c?.active === false ? 'false' : '',
      option_groups: formatOptionGroups((p.option_groups as CellGroup[] | undefined) ?? []),
    };
    return CSV_COLUMNS.map((column) => cell(values[column])).join(',');
  });
  const used = new Set(doc.products.map((p) => p.category_external_id));
  const leftOut = doc.categories.filter((c) => !used.has(c.external_id)).map((c) => c.external_id);
  return { text: `${[CSV_COLUMNS.join(','), ...rows].join('\n')}\n`, leftOut };
}
