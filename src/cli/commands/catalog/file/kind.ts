import { extname } from 'node:path';

// A file's format from its name alone: `catalog pull` needs only this, and read.ts (which validates
// with the contract, so loads zod) would otherwise come with it.

export type CatalogFileKind = 'json' | 'csv';

/** The format of a catalog file, from its name's extension (`.json` or `.csv`, any case). */
export function catalogFileKind(file: string): CatalogFileKind | null {
  const ext = extname(file).toLowerCase();
  return ext === '.json' ? 'json' : ext === '.csv' ? 'csv' : null;
}
