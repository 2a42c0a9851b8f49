import type { CliContext } from '../../context.js';
import type { HomologationReport } from '../../../../checks/report.js';
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
    report = (await control.request<HomologationReport>('GET', path)).data;
  }
  progress.stop();
  return { report, interrupted: signal.aborted };
}
