import type { Command } from 'commander';
import { writeFileAtomic } from '../../../files/atomic.js';
import { resolveContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { note, printJson, printLine, plural } from '../../output.js';
import { csvText } from './file/csv-write.js';
import { catalogDocument, jsonText } from './file/from-store.js';
import { catalogFileKind } from './file/kind.js';
import { readStore } from './sync/remote.js';
import { spin } from './sync/progress.js';

/**
 * `catalog pull --out FILE`: every category and every product page of the store, written as the
 * catalog file that `catalog sync` reads (JSON, or CSV when the name ends in .csv). The file is
 * written whole or not at all.
 */
export async function pullAction(options: { out: string }, command: Command): Promise<void> {
  const kind = catalogFileKind(options.out);
  if (!kind) throw usageError('error: --out must name a .json or .csv file');
  const ctx = await resolveContext(command);
  const store = await spin('Reading the catalog', () => readStore(ctx.client(), { products: true }), ctx.json);
  const { doc, skipped } = catalogDocument(store.categories, store.products ?? []);
  const { text, leftOut } = kind === 'csv' ? csvText(doc) : { text: jsonText(doc), leftOut: [] };
  try {
    writeFileAtomic(options.out, text, 0o644);
  } catch (error) {
    throw usageError(`error: cannot write ${options.out} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (skipped.categories || skipped.products) {
    note(`note: ${plural(skipped.categories, 'category', 'categories')} and ${plural(skipped.products, 'product')} made in the panel (no external_id) are not in the file`);
  }
  if (leftOut.length) note(`note: categories without products cannot be written to CSV: ${leftOut.join(', ')} (use a .json file to keep them)`);
  const summary = { file: options.out, format: kind, store_id: store.storeId, categories: doc.categories.length, products: doc.products.length, skipped };
  if (ctx.json) printJson(summary);
  else printLine(`Wrote ${plural(doc.categories.length, 'category', 'categories')} and ${plural(doc.products.length, 'product')} of store "${store.storeName}" (${store.storeId}) to ${options.out}`);
}
