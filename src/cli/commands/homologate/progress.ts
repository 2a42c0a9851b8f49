import type { Ora } from 'ora';
import { checkLine, type Painter } from '../../../../checks/writers/terminal.js';
import type { CheckMeta, CheckResult } from '../../../../checks/types.js';
import { errColors } from '../../output.js';
import { spinnerFactory, type SpinnerOptions } from '../../spinner.js';

/**
 * Live progress on stderr: an ora spinner per check on a TTY, plain lines otherwise (CI logs), and
 * nothing but the final result with --json.
 */
export class Progress {
  private spinner: Ora | null = null;
  private readonly paint: Painter = errColors();

  private constructor(
    private readonly fancy: boolean,
    private readonly quiet: boolean,
    private readonly ora: ((options: SpinnerOptions) => Ora) | null,
  ) {}

  static async create(json: boolean): Promise<Progress> {
    const fancy = !json && Boolean(process.stderr.isTTY) && !process.env.CI;
    const ora = fancy ? await spinnerFactory() : null;
    return new Progress(fancy, json, ora);
  }

  say(line: string): void {
    if (this.quiet) return;
    this.spinner?.stop();
    process.stderr.write(`${line}\n`);
    this.spinner?.start();
  }

  start(check: Pick<CheckMeta, 'id' | 'title'>): void {
    if (this.fancy && this.ora) this.spinner = this.ora({ text: `${check.id}: ${check.title}` }).start();
  }

  decided(result: Pick<CheckResult, 'id' | 'title' | 'status' | 'reason'>): void {
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
