import { randomBytes } from 'node:crypto';
import type { CliContext } from '../../context.js';
import { resultOf, runChecks } from '../../../../checks/runner.js';
import { selectChecks } from '../../../../checks/registry.js';
import type { RunContext, SharedState } from '../../../../checks/context.js';
import type { CheckResult } from '../../../../checks/types.js';
import type { ReportIntegration, ReportMode } from '../../../../checks/report.js';
import type { Progress } from './progress.js';
import type { HomologateOptions } from './options.js';
import { referenceStore } from './reference-store.js';

export interface ActiveRun {
  mode: ReportMode;
  results: CheckResult[];
  integration: ReportIntegration;
  notes: string[];
}

/** What answers at the base URL: an emulator, a real environment, or nothing at all. */
export type TargetKind = 'emulator' | 'real' | 'unreachable';

/**
 * The CLI as the reference integrator: runs the selected checks against the target. On an emulator
 * it works on a store and integration of its own (reference-store.ts) and drives the simulator and
 * faults itself; against a real environment it asks a person (or, with --non-interactive, skips what
 * needs one), and the webhook it points at its own receiver is put back.
 */
export async function runActive(cli: CliContext, options: HomologateOptions, target: TargetKind, progress: Progress, signal: AbortSignal): Promise<ActiveRun> {
  const isEmulator = target === 'emulator';
  // A target where nothing answers is not a real environment: no person is asked for anything.
  const mode: ReportMode = isEmulator ? 'automatic' : target === 'unreachable' ? 'unreachable' : options.nonInteractive ? 'non_interactive' : 'interactive';
  const notes: string[] = [];
  if (mode === 'non_interactive') notes.push('--non-interactive: the steps that need a person in the panel (creating the simulated orders) were skipped; the checks that depend on them are skipped or failed, so no certificate can be issued.');
  if (target === 'real') notes.push('Real environment: fault injection is only available on the emulator, so the retries check is skipped.');
  // A target that does not answer is not a real environment: most often an emulator that is not running.
  if (target === 'unreachable') notes.push(`Nothing answered at ${cli.baseUrl}: is the emulator running? Start it with "merchant-kit emulator start", or point --base-url at it.`);
  const runId = randomBytes(3).toString('hex');
  const state: SharedState = {};
  const control = isEmulator ? cli.control() : null;
  const own = control ? await referenceStore(cli, control, runId, progress, state) : null;
  if (own) notes.push(own.note);
  const ctx: RunContext = {
    client: own?.client ?? cli.client(),
    control,
    mode: mode === 'interactive' ? 'interactive' : mode === 'automatic' ? 'automatic' : 'non_interactive',
    basePath: new URL(cli.baseUrl).pathname.replace(/\/$/, ''),
    state,
    signal,
    waitMs: options.timeoutSeconds * 1000,
    say: (line) => progress.say(line),
    runId,
  };
  try {
    const checks = selectChecks(options.only);
    let results: CheckResult[];
    if (own?.setupFailure) {
      // The reports are still written, with the reason once (a note) and every check not run.
      notes.push(`The run stopped before its checks: ${own.setupFailure}.`);
      results = checks.map((c) => resultOf(c, { status: 'fail', reason: "not run: the reference integrator's set-up failed (see the notes)", evidence: [] }, 0));
      for (const r of results) progress.decided(r);
    } else {
      results = await runChecks(checks, ctx, { onStart: (c) => progress.start(c), onDecided: (r) => progress.decided(r) });
    }
    progress.stop();
    await putBackWebhook(ctx, notes);
    if (own) await own.retire().catch(() => notes.push(`The reference store ${own.integration.store_id} could not be suspended: it stays in the panel's store selector until a reset.`));
    const me = ctx.state.me;
    const integration = own?.integration ?? { id: me?.integration.id ?? null, store_id: me?.store.id ?? null, store_name: me?.store.name ?? null };
    return { mode, results, integration, notes };
  } finally {
    if (own) await own.client.close();
  }
}

/** The run's receiver closes; the webhook it pointed there is put back (left inactive when there was none). */
async function putBackWebhook(ctx: RunContext, notes: string[]): Promise<void> {
  if (!ctx.state.receiver) return;
  await ctx.state.receiver.close();
  const before = ctx.state.previousWebhook;
  if (before === undefined) return;
  const restore = before ?? { url: ctx.state.receiver.url, events: ['*'], active: false };
  await ctx.client.webhook.put(restore).catch(() => notes.push('The webhook could not be put back as it was before the run.'));
}
