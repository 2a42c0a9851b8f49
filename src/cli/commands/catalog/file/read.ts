import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { readCsvCatalog } from './csv-read.js';
import { readJsonCatalog } from './json-read.js';
import { CatalogFileError, fileIssue, type CatalogItems, type FileIssue } from './model.js';
import { validateEntries } from './validate.js';

export type CatalogFileKind = 'json' | 'csv';

/** The format of a catalog file, from its name's extension (`.json` or `.csv`, any case). */
export function catalogFileKind(file: string): CatalogFileKind | null {
  const ext = extname(file).toLowerCase();
  return ext === '.json' ? 'json' : ext === '.csv' ? 'csv' : null;
}

/**
 * Reads and validates a catalog file. Throws `CatalogFileError` with every problem found (not only
 * the first), each with its line, so that one run shows everything to fix.
 */
export async function readCatalogFile(file: string): Promise<{ items: CatalogItems; text: string }> {
  const kind = catalogFileKind(file);
  if (!kind) throw new CatalogFileError(file, [fileIssue(file, null, 'the file name must end in .json or .csv', 'invalid_file')]);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CatalogFileError(file, [fileIssue(file, null, code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? 'error'})`, 'unreadable')]);
  }
  const read = kind === 'json' ? { entries: readJsonCatalog(file, text), issues: [] as FileIssue[] } : readCsvCatalog(file, text);
  const { items, issues } = validateEntries(file, read.entries);
  const all = [...read.issues, ...issues].sort((a, b) => (a.where.line ?? 0) - (b.where.line ?? 0));
  if (all.length) throw new CatalogFileError(file, all);
  return { items, text };
}
