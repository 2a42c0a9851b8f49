import type { z } from 'zod';
import { categoryInput, productInput } from '../../../../contract/catalog.js';
import { externalId } from '../../../../contract/common.js';
import { issuesToDetails } from '../../../../contract/validation.js';
import { renameField, type CatalogItems, type CategoryItem, type FileIssue, type ProductItem, type RawEntry } from './model.js';

/**
 * Checks every entry against the contract (the same schemas the API applies, the same `details`),
 * then what only the whole file shows: repeated codes, option codes used by two products, products
 * of a category the file does not have, an inactive category with active products.
 */
export function validateEntries(file: string, entries: RawEntry[]): { items: CatalogItems; issues: FileIssue[] } {
  const issues: FileIssue[] = [];
  const categories: CategoryItem[] = [];
  const products: ProductItem[] = [];
  for (const entry of entries) {
    const schema = entry.kind === 'category' ? categoryInput : productInput;
    const parsed = parseEntry(entry, schema, issues);
    if (!parsed) continue;
    if (entry.kind === 'category') categories.push({ external_id: parsed.code, data: parsed.data as CategoryItem['data'], where: entry.where });
    else products.push({ external_id: parsed.code, data: parsed.data as ProductItem['data'], where: entry.where });
  }
  issues.push(...duplicates(categories, 'category'), ...duplicates(products, 'product'), ...optionCodes(products), ...inactiveWithActive(categories, products));
  return { items: { file, categories, products }, issues };
}

function parseEntry(entry: RawEntry, schema: z.ZodType, issues: FileIssue[]): { code: string; data: unknown } | null {
  const push = (details: { field: string; code: string; message: string }[]) =>
    details.forEach((d) => issues.push({ where: entry.where, field: renameField(d.field, entry.fields), code: d.code, message: d.message }));
  if (!entry.value || typeof entry.value !== 'object' || Array.isArray(entry.value)) {
    issues.push({ where: entry.where, field: '', code: 'invalid_type', message: `expected an object for the ${entry.kind}` });
    return null;
  }
  const { external_id: code, ...rest } = entry.value as Record<string, unknown>;
  const codeResult = externalId.safeParse(code, { reportInput: true });
  if (!codeResult.success) push(issuesToDetails(codeResult.error.issues, 'external_id'));
  const result = schema.safeParse(rest, { reportInput: true });
  if (!result.success) push(issuesToDetails(result.error.issues));
  return codeResult.success && result.success ? { code: codeResult.data, data: result.data } : null;
}

function duplicates(items: (CategoryItem | ProductItem)[], kind: string): FileIssue[] {
  const first = new Map<string, CategoryItem | ProductItem>();
  const out: FileIssue[] = [];
  for (const item of items) {
    const earlier = first.get(item.external_id);
    if (earlier) out.push({ where: item.where, field: 'external_id', code: 'duplicate', message: `${kind} ${item.external_id} is already on ${earlier.where.label}` });
    else first.set(item.external_id, item);
  }
  return out;
}

/** spec: Product — group and option codes cannot belong to another product. */
function optionCodes(products: ProductItem[]): FileIssue[] {
  const owner = new Map<string, ProductItem>();
  const out: FileIssue[] = [];
  for (const product of products) {
    product.data.option_groups.forEach((group, g) => {
      const codes: [string, string][] = [[`option_groups.${g}.external_id`, `g:${group.external_id}`]];
      group.options.forEach((o, i) => codes.push([`option_groups.${g}.options.${i}.external_id`, `o:${o.external_id}`]));
      for (const [field, code] of codes) {
        const other = owner.get(code);
        if (other && other !== product) {
          out.push({ where: product.where, field, code: 'duplicate', message: `code ${code.slice(2)} also belongs to product ${other.external_id} (${other.where.label})` });
        } else owner.set(code, product);
      }
    });
  }
  return out;
}

/** The API refuses to deactivate a category that has active products (409 category_not_empty). */
function inactiveWithActive(categories: CategoryItem[], products: ProductItem[]): FileIssue[] {
  const inactive = new Map(categories.filter((c) => !c.data.active).map((c) => [c.external_id, c]));
  return products
    .filter((p) => p.data.active && inactive.has(p.data.category_external_id))
    .map((p) => ({ where: p.where, field: 'category_external_id', code: 'category_not_empty', message: `category ${p.data.category_external_id} is inactive in the file but this product is active` }));
}

/**
 * Products whose category is neither in the file nor already in the store: the API would refuse
 * each one, so the file is refused before anything is sent. `inFile` holds every category code of
 * the file, those with problems of their own too (they are reported for themselves).
 */
export function unknownCategories(items: CatalogItems, inFile: ReadonlySet<string>, storeCategories: ReadonlySet<string>): FileIssue[] {
  return items.products
    .filter((p) => !inFile.has(p.data.category_external_id) && !storeCategories.has(p.data.category_external_id))
    .map((p) => ({ where: p.where, field: 'category_external_id', code: 'not_found', message: `category ${p.data.category_external_id} is neither in the file nor in the store` }));
}
