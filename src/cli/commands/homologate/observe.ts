import type { CliContext } from '../../context.js';
import { redactSecrets } from '../../../logging/redact.js';
import { summarize, type HomologationReport } from '../../../../checks/report.js';
import type { Task, TaskStatus } from '../../../../checks/tasks.js';
import type { Progress } from './progress.js';
import type { HomologateOptions } from './options.js';

const POLL_MS = 300;

/** Resolves after `ms`, or at once when `signal` aborts; leaves no listener behind (one per poll would pile up). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * DESIGN: `homologate --observe` prints each task with its instruction when it opens, and a line
 * when it is done (or done wrongly). `seen` keeps the state each task was last shown in.
 */
function showTasks(tasks: Task[], seen: Map<string, TaskStatus>, progress: Progress): void {
  for (const t of tasks) {
    const before = seen.get(t.id);
    if (before === t.status) continue;
    seen.set(t.id, t.status);
    if (before === undefined) progress.say(`Your step ${t.id} (${t.action}): ${t.instruction}`);
    if (t.status === 'done') progress.say(`Done ${t.id} (${t.action}): ${t.reason}`);
    if (t.status === 'failed') progress.say(`Done wrongly ${t.id} (${t.action}): ${t.reason}`);
  }
}

/** The spinner's line while the session watches: how far grading got and what waits for the person. */
function watching(report: HomologationReport): string {
  const decided = report.checks.filter((c) => c.status !== 'pending').length;
  const open = report.tasks.filter((t) => t.status === 'open').map((t) => t.id);
  return `observing: ${decided} of ${report.checks.length} checks decided${open.length ? `; your steps still open: ${open.join(', ')}` : ''}`;
}

/**
 * The observer: starts a session on the emulator for the integration, shows each check as it is
 * decided and each task as it opens and is done, and returns the report once every check is
 * decided, at the timeout, or when interrupted.
 */
export async function runObserver(cli: CliContext, options: HomologateOptions, progress: Progress, signal: AbortSignal): Promise<{ report: HomologationReport; interrupted: boolean }> {
  const control = cli.control();
  const id = options.integration!;
  const path = `/homologation/${encodeURIComponent(id)}`;
  let report = (await control.request<HomologationReport>('POST', `${path}/start`, { timeout_seconds: options.timeoutSeconds })).data;
  progress.say(`Observing ${id}: the session created its orders and is sending the probes; run your ERP now, and do the steps below in it.`);
  const shown = new Set<string>();
  const tasks = new Map<string, TaskStatus>();
  const until = Date.now() + (options.timeoutSeconds + 10) * 1000;
  for (;;) {
    showTasks(report.tasks, tasks, progress);
    for (const c of report.checks) {
      if (c.status !== 'pending' && !shown.has(c.id)) {
        shown.add(c.id);
        progress.decided(c);
      }
    }
    if (report.complete || signal.aborted || Date.now() > until) break;
    progress.watch(watching(report));
    await pause(POLL_MS, signal);
    if (signal.aborted) break;
    try {
      report = (await control.request<HomologationReport>('GET', path)).data;
    } catch (error) {
      report = lost(report, error);
      for (const c of report.checks) if (!shown.has(c.id)) progress.decided(c);
      break;
    }
  }
  progress.stop();
  return { report, interrupted: signal.aborted };
}

/**
 * The emulator stopped answering mid-session (stopped, crashed, unreachable): what was decided stays,
 * what was not fails with the reason, and the reports are still written (incomplete, never certified).
 */
function lost(report: HomologationReport, error: unknown): HomologationReport {
  const why = `the emulator stopped answering: ${redactSecrets(error instanceof Error ? error.message : String(error))}`;
  const checks = report.checks.map((c) => (c.status === 'pending' ? { ...c, status: 'fail' as const, reason: `${why} (was: ${c.reason})` } : c));
  return { ...report, complete: false, checks, notes: [...report.notes, `The run ended early: ${why}.`], summary: summarize(checks, false) };
}
