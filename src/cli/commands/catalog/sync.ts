import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { profileStateDir } from '../../config/paths.js';
import { ExitError, usageError } from '../../errors.js';
import { CatalogFileError } from './file/model.js';
import { readCatalogFile } from './file/read.js';
import { unknownCategories } from './file/validate.js';
import { planSync } from './sync/plan.js';
import { createProgress, spin } from './sync/progress.js';
import { readStore } from './sync/remote.js';
import { printDryRun, printIssues, printSummary } from './sync/report.js';
import { failureOf, runIncremental, runSnapshot } from './sync/run.js';

export interface SyncOptions {
  fullSnapshot?: boolean;
  dryRun?: boolean;
}

/** Prints a file's problems and ends with exit 2: a file that fails validation sends nothing. */
function refuseFile(error: CatalogFileError): never {
  printIssues(error.issues);
  throw new ExitError(`error: ${error.message}`, 2);
}

/**
 * `catalog sync <file>`: validates the whole file locally, reads the store, then sends what changed
 * (or, with `--full-snapshot`, everything as one snapshot in parts); `--dry-run` stops after the diff.
 */
export async function syncAction(file: string, options: SyncOptions, command: Command): Promise<void> {
  const read = await readCatalogFile(file).catch((error) => (error instanceof CatalogFileError ? refuseFile(error) : Promise.reject(error)));
  const { items } = read;
  if (options.fullSnapshot && items.categories.length + items.products.length === 0) {
    throw usageError(`error: ${file} has no categories or products; a full snapshot of nothing would deactivate the whole catalog, so it is not sent`);
  }
  const ctx = await resolveContext(command);
  const client = ctx.client();
  // A real full snapshot sends everything whatever the store holds: its products need not be read.
  const store = await spin('Reading the store', () => readStore(client, { products: Boolean(options.dryRun || !options.fullSnapshot) }), ctx.json);
  const unknown = unknownCategories(items, new Set(store.categories.flatMap((c) => (c.external_id ? [c.external_id] : []))));
  if (unknown.length) refuseFile(new CatalogFileError(file, unknown));
  const plan = planSync(items, store, Boolean(options.fullSnapshot));
  if (options.dryRun) {
    printDryRun(ctx.json, file, plan, store);
    return;
  }
  if (store.catalogMode !== 'erp_managed') {
    throw new ExitError(`error: the integration's catalog_mode is ${store.catalogMode}: the store's panel owns the catalog and the API refuses catalog writes (403 field_not_managed); nothing was sent`, 1);
  }
  const progress = await createProgress();
  const started = Date.now();
  try {
    const result = options.fullSnapshot
      ? await runSnapshot(client, plan, progress, { stateDir: profileStateDir(ctx.profileName), baseUrl: ctx.baseUrl, integrationId: store.integrationId })
      : await runIncremental(client, plan, progress);
    progress.stop();
    printSummary(ctx.json, file, plan, store, result, Date.now() - started);
    const failure = failureOf(result);
    if (failure) throw failure;
  } finally {
    progress.stop();
  }
}
