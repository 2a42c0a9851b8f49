import { constants } from 'node:os';
import type { Command } from 'commander';
import { resolveContext, type CliContext } from '../../context.js';
import { profileStateDir } from '../../config/paths.js';
import { ExitError, usageError, type ExitCode } from '../../errors.js';
import { note } from '../../output.js';
import { Stopped } from '../feed/stop.js';
import { CatalogFileError, formatIssue, type FileIssue } from './file/model.js';
import { inspectCatalogFile, type InspectedFile } from './file/read.js';
import { unknownCategories } from './file/validate.js';
import { planSync, type SyncPlan } from './sync/plan.js';
import { createProgress, spin } from './sync/progress.js';
import { readStore, type StoreState } from './sync/remote.js';
import { printDryRun, printIssues, printStopped, printSummary, printWarnings, stoppedText } from './sync/report.js';
import { failureOf, runIncremental, runSnapshot, SyncStopped } from './sync/run.js';
import { similarCategories, type SimilarCategory } from './sync/similar.js';

export interface SyncOptions {
  fullSnapshot?: boolean;
  dryRun?: boolean;
}

/**
 * A file that fails its checks sends nothing: exit 2 with every problem, one per line for people,
 * or as the `details` of the one JSON error with `--json`.
 */
function refuseFile(file: string, issues: FileIssue[], json: boolean, why?: string): never {
  const message = `error: ${new CatalogFileError(file, issues).message}${why ? ` (${why})` : ''}`;
  if (!json) printIssues(issues);
  const details = issues.map((i) => ({ file: i.where.file, line: i.where.line, item: i.where.label || null, field: i.field || null, code: i.code, message: i.message, text: formatIssue(i) }));
  throw new ExitError(message, 2, { details });
}

/** Whether `--json` was asked for, before the target is known (a file refused without a credential). */
const wantsJson = (command: Command) => Boolean(command.optsWithGlobals().json);

/**
 * The store, and every problem of the file: its own, and products of a category that is neither in
 * the file nor in the store. A file with problems is refused with all of them at once; when the
 * store cannot be read it is refused with its own, saying that categories were not checked.
 */
async function checkedAgainstStore(file: string, read: InspectedFile, ctx: CliContext, products: boolean): Promise<StoreState> {
  let store: StoreState;
  try {
    store = await spin('Reading the store', () => readStore(ctx.client(), { products }), ctx.json);
  } catch (error) {
    if (read.issues.length) refuseFile(file, read.issues, ctx.json, 'the store could not be read, so the products\' categories were not checked');
    throw error;
  }
  const storeCodes = new Set(store.categories.flatMap((c) => (c.external_id ? [c.external_id] : [])));
  const issues = [...read.issues, ...unknownCategories(read.items, read.categoryCodes, storeCodes)].sort((a, b) => (a.where.line ?? 0) - (b.where.line ?? 0));
  if (issues.length) refuseFile(file, issues, ctx.json);
  return store;
}

/**
 * `catalog sync <file>`: checks the whole file locally and against the store, then sends what
 * changed (or, with `--full-snapshot`, everything as one snapshot in parts); `--dry-run` stops after
 * the diff. A new category named like one the store has is warned about.
 */
export async function syncAction(file: string, options: SyncOptions, command: Command): Promise<void> {
  const read = await inspectCatalogFile(file).catch((error) => (error instanceof CatalogFileError ? refuseFile(file, error.issues, wantsJson(command)) : Promise.reject(error)));
  const { items } = read;
  if (options.fullSnapshot && items.categories.length + items.products.length === 0 && read.issues.length === 0) {
    throw usageError(`error: ${file} has no categories or products; a full snapshot of nothing would deactivate the whole catalog, so it is not sent`);
  }
  const ctx = await resolveContext(command);
  // A real full snapshot sends everything whatever the store holds: its products need not be read.
  const store = await checkedAgainstStore(file, read, ctx, Boolean(options.dryRun || !options.fullSnapshot));
  const plan = planSync(items, store, Boolean(options.fullSnapshot));
  const similar = similarCategories(plan, items, store);
  printWarnings(ctx.json, similar);
  if (options.dryRun) {
    printDryRun(ctx.json, file, plan, store, similar);
    return;
  }
  if (store.catalogMode !== 'erp_managed') {
    throw new ExitError(`error: the integration's catalog_mode is ${store.catalogMode}: the store's panel owns the catalog and the API refuses catalog writes (403 field_not_managed); nothing was sent`, 1, { code: 'catalog_not_managed' });
  }
  await send(file, plan, store, similar, ctx, Boolean(options.fullSnapshot));
}

/**
 * Sends the plan. Ctrl+C (or SIGTERM) lets the part in flight finish and then stops; a second one
 * stops at once. A run that stops early, by a signal or a failure, says how far it got and how to
 * go on, before its error.
 */
async function send(file: string, plan: SyncPlan, store: StoreState, similar: SimilarCategory[], ctx: CliContext, fullSnapshot: boolean): Promise<void> {
  const client = ctx.client();
  const progress = await createProgress();
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      // The second one: the default action, at once.
      detach();
      process.kill(process.pid, signal);
      return;
    }
    progress.note(`${signal}: stopping after the part in flight (again to stop at once)…`);
    stop.abort(new Stopped(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const detach = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const started = Date.now();
  try {
    const result = fullSnapshot
      ? await runSnapshot(client, plan, progress, { stateDir: profileStateDir(ctx.profileName), baseUrl: ctx.baseUrl, integrationId: store.integrationId, signal: stop.signal })
      : await runIncremental(client, plan, progress, { signal: stop.signal });
    progress.stop();
    printSummary(ctx.json, file, plan, store, result, Date.now() - started, similar);
    const failure = failureOf(result);
    if (failure) throw failure;
  } catch (error) {
    if (!(error instanceof SyncStopped)) throw error;
    progress.stop();
    const signal = error.cause instanceof Stopped && error.cause.signal !== 'fatal' ? error.cause.signal : null;
    if (ctx.json) printStopped(file, plan, store, error, Date.now() - started, similar, signal ? `signal ${signal}` : 'failure');
    if (!signal) {
      if (!ctx.json) note(`interrupted: ${stoppedText(error)}`);
      throw error.cause;
    }
    const { resume } = error;
    throw new ExitError(`error: stopped by ${signal}: ${stoppedText(error)}`, (128 + constants.signals[signal]) as ExitCode, {
      code: 'interrupted',
      details: { signal, parts_done: resume.partsDone, parts_total: resume.partsTotal, snapshot_id: resume.snapshotId },
    });
  } finally {
    progress.stop();
    detach();
  }
}
