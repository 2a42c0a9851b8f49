import { redactSecrets } from '../src/logging/redact.js';
import type { Check } from './check.js';
import type { RunContext } from './context.js';
import type { CheckMeta, CheckOutcome, CheckResult } from './types.js';

export interface RunOptions {
  /** Called as each check starts (live progress). */
  onStart?: (check: CheckMeta) => void;
  /** Called as each check is decided. */
  onDecided?: (result: CheckResult) => void;
}

export function resultOf(check: CheckMeta, outcome: CheckOutcome, durationMs: number): CheckResult {
  return { id: check.id, title: check.title, area: check.area, mandatory: check.mandatory, rule: check.rule, duration_ms: Math.round(durationMs), ...outcome };
}

/** The run's time is up (`--timeout`): a timeout is a failure of the target, not an interruption. */
export class RunTimeout extends Error {
  constructor(readonly seconds: number) {
    super(`no result within --timeout (${seconds} s)`);
    this.name = 'RunTimeout';
  }
}

/** What a check stopped early by the run's signal is: failed at a timeout, pending at an interruption. */
function stopped(signal: AbortSignal, what: string): CheckOutcome {
  if (signal.reason instanceof RunTimeout) return { status: 'fail', reason: `${what} when the run timed out: ${signal.reason.message}`, evidence: [] };
  return { status: 'pending', reason: `${what} when the run was interrupted`, evidence: [] };
}

/**
 * Resolves with `pending` when the run is interrupted (SIGINT, --timeout) while a check runs.
 * `dispose` removes its listener once the check is over (one per check would pile up on the signal).
 */
function aborted(signal: AbortSignal): { outcome: Promise<CheckOutcome>; dispose(): void } {
  let done = () => {};
  const outcome = new Promise<CheckOutcome>((resolve) => {
    done = () => resolve(stopped(signal, 'the check was under way'));
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
  return { outcome, dispose: () => signal.removeEventListener('abort', done) };
}

/**
 * @example
 * const results = await runChecks(selectChecks('connection,catalog'), ctx, { onDecided: (r) => console.log(r.id, r.status) });
 *
 * Runs the checks in order. A check that throws fails with the reason (a target that is down,
 * answers garbage or times out is a failed check, never a crash); an interrupted run leaves the
 * check under way and the rest `pending`.
 */
export async function runChecks(checks: readonly Check[], ctx: RunContext, options: RunOptions = {}): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (ctx.signal.aborted) {
      results.push(resultOf(check, stopped(ctx.signal, 'not run'), 0));
      continue;
    }
    if (ctx.state.unreachable) {
      // The reason is the connection check's (said once); the others only say they did not run.
      const result = resultOf(check, { status: 'fail', reason: 'not run: the target does not answer as the API (see connection)', evidence: [] }, 0);
      results.push(result);
      options.onDecided?.(result);
      continue;
    }
    options.onStart?.(check);
    const started = performance.now();
    let outcome: CheckOutcome;
    const interruption = aborted(ctx.signal);
    try {
      outcome = await Promise.race([check.run(ctx), interruption.outcome]);
    } catch (error) {
      outcome = { status: 'fail', reason: `the check could not run: ${redactSecrets(error instanceof Error ? error.message : String(error))}`, evidence: [] };
    } finally {
      interruption.dispose();
    }
    const result = resultOf(check, outcome, performance.now() - started);
    results.push(result);
    options.onDecided?.(result);
  }
  return results;
}
