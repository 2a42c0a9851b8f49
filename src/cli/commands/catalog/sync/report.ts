import { colors, formatTable, note, plural, printJson, printLine } from '../../../output.js';
import { formatIssue, type FileIssue } from '../file/model.js';
import type { Codes, PlannedOp, SyncPlan } from './plan.js';
import type { StoreState } from './remote.js';
import type { Counts, OpError, RunResult, SyncStopped, ThisRun } from './run.js';
import { formatSimilar, type SimilarCategory } from './similar.js';

const MAX_LISTED = 50;
const total = (c: Codes) => c.categories.length + c.products.length;

/** File problems on stderr, one per line (at most 50, then a count). */
export function printIssues(issues: FileIssue[]): void {
  issues.slice(0, MAX_LISTED).forEach((i) => note(formatIssue(i)));
  if (issues.length > MAX_LISTED) note(`… and ${issues.length - MAX_LISTED} more`);
}

/** Warnings on stderr for people (`--json` puts them in its answer instead). */
export function printWarnings(json: boolean, similar: SimilarCategory[]): void {
  if (!json) similar.forEach((s) => note(`warning: ${formatSimilar(s)}`));
}

/** The warnings of a `--json` answer. */
const warningsJson = (similar: SimilarCategory[]) =>
  similar.map((s) => ({ code: 'similar_category', file: s.where.file, line: s.where.line, item: s.where.label, external_id: s.external_id, existing: s.existing, message: formatSimilar(s) }));

/** `menu.csv:7: row 6 (EMP-CARNE): upsert_product failed: validation_failed … data.price: Monto inválido …` */
function formatOpError(e: OpError): string {
  const at = e.line === null ? e.file : `${e.file}:${e.line}`;
  const fields = Array.isArray(e.details) ? e.details.map((d: { field?: string; message?: string }) => ` ${d.field}: ${d.message}`).join(';') : '';
  return `${at}: ${e.item}: ${e.op} failed: ${e.code} ${e.message}${fields}`;
}

const target = (store: StoreState) => `store "${store.storeName}" (${store.storeId}, ${store.environment})`;
const mode = (plan: SyncPlan) => (plan.fullSnapshot ? 'full snapshot' : 'changes only');
/** Items a run of changes does not send because the store has them already (a full snapshot sends everything). */
const notSent = (plan: SyncPlan) => (plan.fullSnapshot ? 0 : total(plan.unchanged));

/** The fields that both `--json` answers (dry run and run) begin with. */
const jsonHead = (file: string, plan: SyncPlan, store: StoreState) => ({ file, mode: plan.fullSnapshot ? 'full_snapshot' : 'changes', store_id: store.storeId });

/** The dry run's answer: what a real run would do, as counts and codes. */
function dryRunJson(file: string, plan: SyncPlan, store: StoreState, similar: SimilarCategory[]) {
  const count = (c: Codes) => ({ categories: c.categories.length, products: c.products.length });
  return {
    dry_run: true,
    ...jsonHead(file, plan, store),
    missing_items_policy: store.missingItemsPolicy,
    counts: { created: count(plan.created), updated: count(plan.updated), deactivated: count(plan.deactivated), unchanged: count(plan.unchanged) },
    created: plan.created,
    updated: plan.updated,
    deactivated: plan.deactivated,
    unchanged: plan.unchanged,
    not_in_file: plan.notInFile,
    operations: plan.ops.length,
    warnings: warningsJson(similar),
  };
}

export function printDryRun(json: boolean, file: string, plan: SyncPlan, store: StoreState, similar: SimilarCategory[] = []): void {
  if (json) return printJson(dryRunJson(file, plan, store, similar));
  const c = colors();
  printLine(`Dry run of ${file} against ${target(store)}: ${mode(plan)}, missing_items_policy ${store.missingItemsPolicy}`);
  const rows = (['created', 'updated', 'deactivated', 'unchanged'] as const).map((k) => ({ k, cat: plan[k].categories.length, prd: plan[k].products.length }));
  printLine(formatTable(rows, [
    { header: '', value: (r) => r.k },
    { header: 'categories', value: (r) => String(r.cat), align: 'right' },
    { header: 'products', value: (r) => String(r.prd), align: 'right' },
  ]));
  const changed = plan.ops.filter((o) => o.change !== 'unchanged');
  for (const op of changed.slice(0, MAX_LISTED)) printLine(describeOp(op));
  if (changed.length > MAX_LISTED) printLine(c.dim(`… and ${plural(changed.length - MAX_LISTED, 'more change')}`));
  for (const code of plan.deactivated.categories.slice(0, MAX_LISTED)) printLine(c.red(`- category ${code}`));
  for (const code of plan.deactivated.products.slice(0, MAX_LISTED)) printLine(c.red(`- product ${code}`));
  const kept = total(plan.notInFile);
  if (kept) printLine(c.dim(notInFileText(plan, store, kept)));
  printLine(`${plural(plan.ops.length, 'operation')} would be sent. Nothing was sent.`);
}

function notInFileText(plan: SyncPlan, store: StoreState, n: number): string {
  const why = !plan.fullSnapshot ? 'only --full-snapshot deactivates missing items' : `missing_items_policy is ${store.missingItemsPolicy}`;
  return `Not in the file, left as ${n === 1 ? 'it is' : 'they are'}: ${plural(n, 'item')} of the store (${why}).`;
}

function describeOp(op: PlannedOp): string {
  const c = colors();
  const kind = op.op === 'upsert_category' ? 'category' : 'product';
  if (op.change === 'created') return c.green(`+ ${kind} ${op.external_id}  ${op.data.name}`);
  return c.yellow(`~ ${kind} ${op.external_id}  (${op.fields.join(', ')})`);
}

/** This run's share in `--json`: the parts it sent and their results. */
const thisRunJson = (run: ThisRun) => ({ from_part: run.fromPart, to_part: run.toPart, operations: run.operations, results: run.counts });

/** The `--json` summary of a real run (or of the part of it done before it stopped). */
function summaryJson(file: string, plan: SyncPlan, store: StoreState, result: RunResult, ms: number, similar: SimilarCategory[]) {
  return {
    dry_run: false,
    ...jsonHead(file, plan, store),
    operations: result.operations,
    batches: result.batches,
    parts_total: result.partsTotal,
    results: result.counts,
    this_run: thisRunJson(result.thisRun),
    not_sent_unchanged: notSent(plan),
    snapshot: result.snapshot,
    errors: result.errors,
    sync_run_ids: result.syncRunIds,
    warnings: warningsJson(similar),
    duration_ms: ms,
  };
}

/** `1,506 created, 0 updated, …`. */
function countsText(c: Counts): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return `${n(c.created)} created, ${n(c.updated)} updated, ${n(c.unchanged)} unchanged, ${n(c.ignored_stale)} ignored as stale, ${n(c.failed)} failed`;
}

/** `parts 4–7` or `part 4`. */
const partsText = (from: number, to: number, word = 'part') => (from === to ? `${word} ${from}` : `${word}s ${from}–${to}`);

export function printSummary(json: boolean, file: string, plan: SyncPlan, store: StoreState, result: RunResult, ms: number, similar: SimilarCategory[] = []): void {
  if (!json) {
    result.errors.slice(0, MAX_LISTED).forEach((e) => note(formatOpError(e)));
    if (result.errors.length > MAX_LISTED) note(`… and ${plural(result.errors.length - MAX_LISTED, 'more failed operation')}`);
  }
  if (json) return printJson(summaryJson(file, plan, store, result, ms, similar));
  printLine(`Synced ${file} into ${target(store)} in ${(ms / 1000).toFixed(1)} s (${mode(plan)})`);
  const s = result.snapshot;
  const run = result.thisRun;
  if (s?.resumed_from_part && run.fromPart !== null && run.toPart !== null) {
    // A resumed snapshot: the whole snapshot's results, then this run's share.
    printLine(`  snapshot of ${plural(result.operations, 'operation')} in ${plural(result.partsTotal, 'part')}: ${countsText(result.counts)}`);
    const earlier = run.fromPart > 1 ? `; ${partsText(1, run.fromPart - 1)} sent by an earlier run` : '';
    printLine(`  this run: ${partsText(run.fromPart, run.toPart)}, ${plural(run.operations, 'operation')}: ${countsText(run.counts)}${earlier}`);
  } else {
    printLine(`  ${plural(result.operations, 'operation')} in ${plural(result.batches, 'batch', 'batches')}: ${countsText(result.counts)}`);
  }
  const skipped = notSent(plan);
  if (skipped) printLine(`  ${plural(skipped, 'item')} already up to date, not sent`);
  if (s) printLine(`  snapshot ${s.snapshot_id}: ${s.status}, ${s.deactivated.toLocaleString('en-US')} deactivated${s.reason ? ` (${s.reason})` : ''}${s.resumed_from_part ? `, resumed at part ${s.resumed_from_part}` : ''}`);
  const kept = total(plan.notInFile);
  if (kept && plan.fullSnapshot === false) printLine(colors().dim(`  ${notInFileText(plan, store, kept)}`));
}

/**
 * Where a sync that stopped early stood, and how to go on: `part 3 of 7 sent (this run: parts 1–3,
 * 1,500 operations); run the same command again to resume snapshot mk-… at part 4`. A run of
 * changes has nothing to resume: run again, it sends what is still different.
 */
export function stoppedText(stopped: SyncStopped): string {
  const { resume, result } = stopped;
  const run = result.thisRun;
  const mine = run.fromPart === null ? 'this run sent no part' : `this run: ${partsText(run.fromPart, run.toPart!)}, ${plural(run.operations, 'operation')}`;
  if (resume.snapshotId === null) {
    const sent = resume.partsDone === 0 ? 'no batch sent' : `batch ${resume.partsDone} of ${resume.partsTotal} sent (${plural(run.operations, 'operation')} of ${result.operations.toLocaleString('en-US')})`;
    return `${sent}; run the same command again: it sends only what is still different from the store`;
  }
  const sent = resume.partsDone === 0 ? `no part of ${resume.partsTotal} acknowledged yet` : `part ${resume.partsDone} of ${resume.partsTotal} sent`;
  return `${sent} (${mine}); run the same command again to resume snapshot ${resume.snapshotId} at part ${Math.min(resume.partsDone + 1, resume.partsTotal)}`;
}

/** The `--json` answer of a sync that stopped early: the summary so far, with where it stopped. */
export function printStopped(file: string, plan: SyncPlan, store: StoreState, stopped: SyncStopped, ms: number, similar: SimilarCategory[], why: string): void {
  const { resume } = stopped;
  printJson({
    ...summaryJson(file, plan, store, stopped.result, ms, similar),
    interrupted: {
      reason: why,
      parts_done: resume.partsDone,
      parts_total: resume.partsTotal,
      snapshot_id: resume.snapshotId,
      next_part: resume.snapshotId === null ? null : Math.min(resume.partsDone + 1, resume.partsTotal),
      message: stoppedText(stopped),
    },
  });
}
