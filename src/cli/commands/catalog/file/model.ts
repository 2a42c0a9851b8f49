import type { CategoryInput, ProductInput } from '../../../../contract/catalog.js';

/** The `format` and `version` of the JSON file that `catalog pull` writes and `catalog sync` reads. */
export const CATALOG_FORMAT = 'merchant-kit.catalog';
export const CATALOG_VERSION = 1;

/** Where an item came from in its file: `line` is the file's line (1-based), `label` names the item. */
export interface Where {
  file: string;
  line: number | null;
  /** `row 4` for CSV, `products[3]` for JSON. */
  label: string;
}

/** One problem of a file, located: a contract detail (`field`, `code`, Spanish `message`) or a file-level one. */
export interface FileIssue {
  where: Where;
  field: string;
  code: string;
  message: string;
}

export interface CategoryItem {
  external_id: string;
  /** The contract's output (defaults filled), which is also the body sent. */
  data: CategoryInput;
  where: Where;
}

export interface ProductItem {
  external_id: string;
  data: ProductInput;
  where: Where;
}

/** A catalog file read and validated: every item passed the contract. */
export interface CatalogItems {
  file: string;
  categories: CategoryItem[];
  products: ProductItem[];
}

/** One category or product as written in a file, before validation. */
export interface RawEntry {
  kind: 'category' | 'product';
  value: unknown;
  where: Where;
  /** How the contract's top-level field names are spelt in this file, when they differ (CSV categories). */
  fields?: Record<string, string>;
}

/** Raised for a file that cannot be used; `issues` are printed one per line. Exit code 2. */
export class CatalogFileError extends Error {
  constructor(readonly file: string, readonly issues: FileIssue[]) {
    super(`${file}: ${issues.length} problem${issues.length === 1 ? '' : 's'}; nothing was sent`);
    this.name = 'CatalogFileError';
  }
}

/** A file-level problem (not of one item). */
export function fileIssue(file: string, line: number | null, message: string, code = 'invalid_file', field = ''): FileIssue {
  return { where: { file, line, label: '' }, field, code, message };
}

/** `menu.csv:7: row 6 (EMP-CARNE): price: Monto inválido … [invalid]` (compiler style: file:line first). */
export function formatIssue(issue: FileIssue): string {
  const at = issue.where.line === null ? issue.where.file : `${issue.where.file}:${issue.where.line}`;
  const parts = [at, issue.where.label, issue.field].filter(Boolean);
  return `${parts.join(': ')}: ${issue.message} [${issue.code}]`;
}

/** A contract field path (`option_groups.0.price`) with its top-level name spelt as the input spells it (`--price`, `category_name`). */
export function renameField(field: string, names: Readonly<Record<string, string>> = {}): string {
  const [head, ...rest] = field.split('.');
  // Own keys only: an unknown field of the input may be called `toString`.
  return [Object.hasOwn(names, head) ? names[head] : head, ...rest].join('.');
}

/** The label of an item: its place in the file and, when it has a text one, its code. */
export function itemLabel(place: string, value: unknown): string {
  const code = value && typeof value === 'object' ? (value as { external_id?: unknown }).external_id : undefined;
  return typeof code === 'string' && code !== '' ? `${place} (${code})` : place;
}
