import type { CliContext } from '../../context.js';
import { redactSecrets } from '../../../logging/redact.js';
import { summarize, type HomologationReport } from '../../../../checks/report.js';
import type { Progress } from './progress.js';
import type { HomologateOptions } from './options.js';

const POLL_MS = 300;

/**
 * The observer: starts a session on the emulator for the integration, shows each check as it is
 * decided, and returns the report once every check is decided, at the timeout, or when interrupted.
 */
export async function runObserver(cli: CliContext, options: HomologateOptions, progress: Progress, signal: AbortSignal): Promise<{ report: HomologationReport; interrupted: boolean }> {
  const control = cli.control();
  const id = options.integration!;
  const path = `/homologation/${encodeURIComponent(id)}`;
  let report = (await control.request<HomologationReport>('POST', `${path}/start`, { timeout_seconds: options.timeoutSeconds })).data;
  progress.say(`Observing ${id}: the session created the simulated orders and is sending the probes; run your ERP now.`);
  const shown = new Set<string>();
  const until = Date.now() + (options.timeoutSeconds + 10) * 1000;
  for (;;) {
    for (const c of report.checks) {
      if (c.status !== 'pending' && !shown.has(c.id)) {
        shown.add(c.id);
        progress.decided(c);
      }
    }
    if (report.complete || signal.aborted || Date.now() > until) break;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLL_MS);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
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
