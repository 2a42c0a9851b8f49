import { readFile } from 'node:fs/promises';
import { catalogFileKind } from './kind.js';
import { readCsvCatalog } from './csv-read.js';
import { readJsonCatalog } from './json-read.js';
import { CatalogFileError, fileIssue, type CatalogItems, type FileIssue } from './model.js';
import { validateEntries } from './validate.js';

export { catalogFileKind, type CatalogFileKind } from './kind.js';

/** A catalog file read and checked: its valid items, every problem found, and every category code it names. */
export interface InspectedFile {
  items: CatalogItems;
  text: string;
  /** Every problem of the file, in line order (empty when the file can be sent). */
  issues: FileIssue[];
  /** The codes of the file's categories, valid or not: a product of an invalid category is not also "of an unknown category". */
  categoryCodes: ReadonlySet<string>;
}

/**
 * Reads and checks a catalog file, collecting every problem (not only the first), each with its
 * line, so that one run shows everything to fix. Throws `CatalogFileError` only when the file cannot
 * be read as its format at all (missing, not JSON, not CSV).
 */
export async function inspectCatalogFile(file: string): Promise<InspectedFile> {
  const kind = catalogFileKind(file);
  if (!kind) throw new CatalogFileError(file, [fileIssue(file, null, 'the file name must end in .json or .csv', 'invalid_file')]);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CatalogFileError(file, [fileIssue(file, null, code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? 'error'})`, 'unreadable')]);
  }
  const read = kind === 'json' ? { ...readJsonCatalog(file, text), missingColumns: [] as string[] } : readCsvCatalog(file, text);
  const { items, issues } = validateEntries(file, read.entries);
  // A missing column is reported once, for the header, not again as a missing field of every row.
  const missing = new Set(read.missingColumns);
  const itemIssues = issues.filter((i) => !missing.has(i.field.split('.')[0]));
  const all = [...read.issues, ...itemIssues].sort((a, b) => (a.where.line ?? 0) - (b.where.line ?? 0));
  const categoryCodes = new Set(read.entries.flatMap((e) => {
    const code = e.kind === 'category' && e.value && typeof e.value === 'object' ? (e.value as { external_id?: unknown }).external_id : undefined;
    return typeof code === 'string' ? [code] : [];
  }));
  return { items, text, issues: all, categoryCodes };
}

/** Reads and validates a catalog file; throws `CatalogFileError` with every problem found when there is any. */
export async function readCatalogFile(file: string): Promise<{ items: CatalogItems; text: string }> {
  const inspected = await inspectCatalogFile(file);
  if (inspected.issues.length) throw new CatalogFileError(file, inspected.issues);
  return { items: inspected.items, text: inspected.text };
}
