import type { RunningEmulator } from '../../../../emulator/server.js';
import { ExitError } from '../../errors.js';
import { readCatalogFile } from '../catalog/file/read.js';
import { CatalogFileError, type CatalogItems, type FileIssue } from '../catalog/file/model.js';
import { unknownCategories } from '../catalog/file/validate.js';
import { printIssues } from '../catalog/sync/report.js';
import type { CatalogLoaded } from './banner.js';

/** `start --catalog FILE`, step 1: the file is read and checked like `catalog sync` does, before the emulator starts (exit 2). */
export async function readStartCatalog(file: string): Promise<CatalogItems> {
  try {
    return (await readCatalogFile(file)).items;
  } catch (error) {
    if (!(error instanceof CatalogFileError)) throw error;
    throw notLoaded(file, error.issues, 2);
  }
}

/**
 * `start --catalog FILE`, step 2: the menu goes into the test store of the ready line, in-process and
 * in one transaction, through the catalog's own service (the API's rules), as its integration. Not
 * through HTTP: these are not the integrator's calls, so they use no rate-limit budget, do not
 * activate the integration and never reach the homologation observer. Items already in the store
 * (a restart with `--data`) are updated; items the file lacks stay as they are, as with `catalog sync`.
 */
export async function loadStartCatalog(running: RunningEmulator, stores: RunningEmulator['stores'], items: CatalogItems): Promise<CatalogLoaded> {
  const { upsertCategory } = await import('../../../../emulator/catalog/categories.js');
  const { upsertProduct } = await import('../../../../emulator/catalog/products.js');
  const { ApiError } = await import('../../../contract/errors.js');
  const seed = stores.find((s) => s.environment === 'test')!;
  const env = running.emulator.env('test');
  const integration = (await env.store.integrations.byId(seed.integration_id))!;
  const inStore = new Set((await env.store.catalog.linkedCategories(integration.id)).map((c) => c.externalId));
  const unknown = unknownCategories(items, new Set(items.categories.map((c) => c.external_id)), inStore);
  if (unknown.length) return refuse(running, items.file, unknown);
  // The order `catalog sync` sends: active categories, products, then inactive categories (once their products are in).
  const categories = items.categories.filter((c) => c.data.active);
  const closing = items.categories.filter((c) => !c.data.active);
  let current: { where: FileIssue['where']; external_id: string } | null = null;
  try {
    await env.store.tx(async (tx) => {
      for (const c of categories) await upsertCategory(env, tx, integration, (current = c).external_id, c.data);
      for (const p of items.products) await upsertProduct(env, tx, integration, (current = p).external_id, p.data);
      for (const c of closing) await upsertCategory(env, tx, integration, (current = c).external_id, c.data);
    });
  } catch (error) {
    if (!(error instanceof ApiError) || !current) throw error;
    const item: { where: FileIssue['where']; external_id: string } = current;
    const details = Array.isArray(error.details) ? error.details.map((d) => `; ${d.field}: ${d.message}`).join('') : '';
    return refuse(running, items.file, [{ where: item.where, field: '', code: error.code, message: `${error.message}${details}` }], 1);
  }
  return { file: items.file, categories: items.categories.length, products: items.products.length };
}

async function refuse(running: RunningEmulator, file: string, issues: FileIssue[], exitCode: 1 | 2 = 2): Promise<never> {
  await running.close();
  throw notLoaded(file, issues, exitCode);
}

/** Prints the file's problems (one per line, `file:line: …`) and returns the error that ends the start. */
function notLoaded(file: string, issues: FileIssue[], exitCode: 1 | 2): ExitError {
  printIssues(issues);
  const what = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new ExitError(`error: --catalog ${file}: ${what} (above); the emulator was not started`, exitCode);
}
