import type { Ora } from 'ora';
import { checkLine, type Painter } from '../../../../checks/writers/terminal.js';
import type { CheckMeta, CheckResult } from '../../../../checks/types.js';
import { errColors } from '../../output.js';
import { canSpin, spinnerFactory, type SpinnerOptions } from '../../spinner.js';

/**
 * Live progress on stderr: an ora spinner per check on a TTY, plain lines otherwise, and nothing but
 * the final result with --json. Every check is printed once: when the terminal summary follows on
 * stdout, a decided check only clears its spinner (stdout a TTY too), and plain output (CI, where one
 * log holds stdout and stderr) leaves its line to the summary.
 */
export class Progress {
  private spinner: Ora | null = null;
  private readonly paint: Painter = errColors();

  private constructor(
    private readonly fancy: boolean,
    private readonly quiet: boolean,
    private readonly persistChecks: boolean,
    private readonly ora: ((options: SpinnerOptions) => Ora) | null,
  ) {}

  /** `summaryOnStdout`: a terminal summary will be printed on stdout. */
  static async create(json: boolean, summaryOnStdout: boolean): Promise<Progress> {
    // canSpin is the one place that decides on a spinner (the docs runner does not count its question
    // as a terminal's: docs/contributing.md); stdout is asked only once a spinner is drawn.
    const fancy = canSpin(json);
    const ora = fancy ? await spinnerFactory() : null;
    const summaryShowsChecks = summaryOnStdout && (!fancy || Boolean(process.stdout.isTTY));
    return new Progress(fancy, json, !summaryShowsChecks, ora);
  }

  say(line: string): void {
    if (this.quiet) return;
    this.spinner?.stop();
    process.stderr.write(`${line}\n`);
    this.spinner?.start();
  }

  /** A spinner with `text` (started, or its text changed); plain output shows nothing. */
  watch(text: string): void {
    if (!this.fancy || !this.ora) return;
    if (this.spinner) this.spinner.text = text;
    else this.spinner = this.ora({ text }).start();
  }

  start(check: Pick<CheckMeta, 'id' | 'title'>): void {
    this.stop();
    this.watch(`${check.id}: ${check.title}`);
  }

  decided(result: Pick<CheckResult, 'id' | 'title' | 'status' | 'reason'>): void {
    // The next check's spinner (or stop()) clears this one; the summary will show the line.
    if (!this.persistChecks) return;
    const line = checkLine(result, this.paint);
    if (this.spinner) {
      this.spinner.stopAndPersist({ symbol: '', text: line });
      this.spinner = null;
    } else if (!this.quiet) process.stderr.write(`${line}\n`);
  }

  stop(): void {
    this.spinner?.stop();
    this.spinner = null;
  }
}
