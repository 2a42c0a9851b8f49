import { colors, formatTable, note, printJson, printLine } from '../../../output.js';
import { formatIssue, type FileIssue } from '../file/model.js';
import type { Codes, PlannedOp, SyncPlan } from './plan.js';
import type { StoreState } from './remote.js';
import type { OpError, RunResult } from './run.js';

const MAX_LISTED = 50;
const plural = (n: number, word: string, words = `${word}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? word : words}`;
const total = (c: Codes) => c.categories.length + c.products.length;

/** File problems on stderr, one per line (at most 50, then a count). */
export function printIssues(issues: FileIssue[]): void {
  issues.slice(0, MAX_LISTED).forEach((i) => note(formatIssue(i)));
  if (issues.length > MAX_LISTED) note(`… and ${issues.length - MAX_LISTED} more`);
}

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
function dryRunJson(file: string, plan: SyncPlan, store: StoreState) {
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
  };
}

export function printDryRun(json: boolean, file: string, plan: SyncPlan, store: StoreState): void {
  if (json) return printJson(dryRunJson(file, plan, store));
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
  if (changed.length > MAX_LISTED) printLine(c.dim(`… and ${changed.length - MAX_LISTED} more changes`));
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

/** The `--json` summary of a real run. */
function summaryJson(file: string, plan: SyncPlan, store: StoreState, result: RunResult, ms: number) {
  return {
    dry_run: false,
    ...jsonHead(file, plan, store),
    operations: result.operations,
    batches: result.batches,
    results: result.counts,
    not_sent_unchanged: notSent(plan),
    snapshot: result.snapshot,
    errors: result.errors,
    sync_run_ids: result.syncRunIds,
    duration_ms: ms,
  };
}

export function printSummary(json: boolean, file: string, plan: SyncPlan, store: StoreState, result: RunResult, ms: number): void {
  result.errors.slice(0, MAX_LISTED).forEach((e) => note(formatOpError(e)));
  if (result.errors.length > MAX_LISTED) note(`… and ${result.errors.length - MAX_LISTED} more failed operations`);
  if (json) return printJson(summaryJson(file, plan, store, result, ms));
  const r = Object.fromEntries(Object.entries(result.counts).map(([k, v]) => [k, v.toLocaleString('en-US')])) as Record<keyof RunResult['counts'], string>;
  printLine(`Synced ${file} into ${target(store)} in ${(ms / 1000).toFixed(1)} s (${mode(plan)})`);
  printLine(`  ${plural(result.operations, 'operation')} in ${plural(result.batches, 'batch', 'batches')}: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.ignored_stale} ignored as stale, ${r.failed} failed`);
  const skipped = notSent(plan);
  if (skipped) printLine(`  ${plural(skipped, 'item')} already up to date, not sent`);
  const s = result.snapshot;
  if (s) printLine(`  snapshot ${s.snapshot_id}: ${s.status}, ${s.deactivated} deactivated${s.reason ? ` (${s.reason})` : ''}${s.resumed_from_part ? `, resumed at part ${s.resumed_from_part}` : ''}`);
  const kept = total(plan.notInFile);
  if (kept && plan.fullSnapshot === false) printLine(colors().dim(`  ${notInFileText(plan, store, kept)}`));
}
