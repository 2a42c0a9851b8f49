import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import type { Command } from 'commander';
import pkg from '../../../../package.json' with { type: 'json' };
import { resolveContext, type CliContext } from '../../context.js';
import { ExitError, usageError } from '../../errors.js';
import { noEmulatorLine, TOKEN_ADVICE } from '../emulator/control-call.js';
import { colors, printJson, printLine } from '../../output.js';
import { buildReport, exitCodeOf, selectedOnly, summarize, type HomologationReport } from '../../../../checks/report.js';
import { writeReports } from '../../../../checks/writers/index.js';
import { terminalReport, verdictLine } from '../../../../checks/writers/terminal.js';
import { parseOptions, type HomologateOptions } from './options.js';
import { Progress } from './progress.js';
import { runActive, type TargetKind } from './active.js';
import { RunTimeout } from '../../../../checks/runner.js';
import { CHECK_IDS } from '../../../../checks/types.js';
import { runObserver } from './observe.js';

const INTERRUPTED_NOTE = 'The run was interrupted: checks not decided are pending.';

/** SIGINT (and --timeout for the active run) end the run early; the reports are still written. */
function interruption(timeoutSeconds: number | null): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const timer = timeoutSeconds === null ? null : setTimeout(() => controller.abort(new RunTimeout(timeoutSeconds)), timeoutSeconds * 1000);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (timer) clearTimeout(timer);
    },
  };
}

export async function homologateAction(command: Command): Promise<void> {
  const options: HomologateOptions = parseOptions(command.optsWithGlobals());
  const cli = await resolveContext(command);
  if (cli.environment === 'live' && !options.allowLive) {
    throw usageError('error: refusing a live credential: the catalog check writes to the real menu (pass --allow-live to run anyway)');
  }
  await prepareReportDir(options);
  // From here on SIGINT writes an interrupted report, and --timeout counts the emulator probe too.
  const stop = interruption(options.observe ? null : options.timeoutSeconds);
  let report: HomologationReport;
  let progress: Progress;
  try {
    const target = await detectTarget(cli, command);
    const isEmulator = target === 'emulator';
    if (options.observe && target === 'unreachable') {
      throw new ExitError(noEmulatorLine(cli.baseUrl), 1);
    }
    if (options.observe && !isEmulator) throw usageError('error: --observe needs an emulator at the base URL (no /_emulator/health answered)');
    progress = await Progress.create(options.json, options.formats.includes('terminal'));
    if (options.observe) {
      const observed = await runObserver(cli, options, progress, stop.signal);
      // The address this command was given, not the emulator process that answered behind it.
      const given = { ...observed.report, target: { ...observed.report.target, base_url: cli.baseUrl } };
      report = observed.interrupted ? markInterrupted(given) : given;
    } else report = await activeReport(cli, options, target, progress, stop.signal);
  } finally {
    stop.dispose();
  }
  const written = await writeReports(report, options.reportDir, options.formats);
  if (options.json) printJson(report);
  else if (options.formats.includes('terminal')) printLine(terminalReport(report, colors(), cli.verbose));
  // Without the terminal summary, the verdict still gets its line.
  else printLine(verdictLine(report, colors()));
  if (!options.json) for (const path of written) progress.say(`wrote ${path}`);
  if (exitCodeOf(report) === 0) return;
  const notRun = CHECK_IDS.filter((id) => !report.checks.some((c) => c.id === id)).length;
  const counts = `${report.summary.failed} failed, ${report.summary.skipped} skipped, ${report.summary.pending} pending${notRun ? `, ${notRun} not run` : ''}`;
  const why = report.interrupted ? 'interrupted' : counts;
  throw new ExitError(`homologation: ${selectedOnly(report) ? 'the selected checks did not all pass' : 'not certified'} (${why})`, 1);
}

/** The CLI as the reference integrator, and its report (interrupted, timed out or complete). */
async function activeReport(cli: CliContext, options: HomologateOptions, target: TargetKind, progress: Progress, signal: AbortSignal): Promise<HomologationReport> {
  const started = new Date();
  const run = await runActive(cli, options, target, progress, signal);
  const interrupted = signal.aborted && !(signal.reason instanceof RunTimeout);
  const notes = interrupted
    ? [...run.notes, INTERRUPTED_NOTE]
    : signal.aborted
      ? [...run.notes, `The run timed out after ${options.timeoutSeconds} s: checks not decided failed.`]
      : run.notes;
  return buildReport({
    version: pkg.version,
    mode: run.mode,
    startedAt: started,
    complete: !interrupted && run.results.every((r) => r.status !== 'pending'),
    interrupted,
    target: { base_url: cli.baseUrl, environment: cli.environment, emulator: target === 'emulator' },
    integration: run.integration,
    checks: run.results,
    notes,
  });
}

/** A --report-dir that cannot hold the files is refused before the run, not after it. */
async function prepareReportDir(options: HomologateOptions): Promise<void> {
  if (options.formats.every((f) => f === 'terminal')) return;
  try {
    await mkdir(options.reportDir, { recursive: true });
    await access(options.reportDir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // mkdir says EEXIST for a file of that name, ENOTDIR for a file on the way to it.
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw usageError(`error: --report-dir ${options.reportDir} is a file, or inside one: name a folder for the reports (it is made when missing)`);
    }
    const why = code === 'EACCES' || code === 'EPERM' ? 'no permission to write there' : code ?? (error as Error).message;
    throw usageError(`error: --report-dir ${options.reportDir} cannot hold the reports (${why})`);
  }
}

/**
 * DESIGN: an emulator is recognised by /_emulator/health. A short timeout of its own: a target that
 * never answers must not hold the run (nor its exit) for the client's 30 s. An emulator behind a
 * token it was not given is refused here: run as a real environment it would ask a person for steps.
 */
async function detectTarget(cli: CliContext, command: Command): Promise<TargetKind> {
  const { EmulatorControl } = await import('../../../client/index.js');
  const opts = command.optsWithGlobals() as { adminToken?: string };
  const probe = new EmulatorControl(cli.adminUrl.replace(/\/_emulator\/?$/, ''), { adminToken: opts.adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN, timeoutMs: 3000 });
  try {
    const answer = await probe.probe();
    if (answer === 'needs_token') {
      throw new ExitError(`error: the emulator's control API at ${cli.adminUrl} refused access; ${TOKEN_ADVICE}`, 1);
    }
    return answer === 'emulator' ? 'emulator' : answer === 'unreachable' ? 'unreachable' : 'real';
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/** An observer's report cut short by the person: incomplete, undecided checks stay pending. */
function markInterrupted(report: HomologationReport): HomologationReport {
  const notes = [...report.notes, INTERRUPTED_NOTE];
  return { ...report, complete: false, interrupted: true, notes, summary: summarize(report.checks, false) };
}
