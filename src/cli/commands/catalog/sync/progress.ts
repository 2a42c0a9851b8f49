import { note, plural, withSpinner } from '../../../output.js';
import { canSpin, spinnerFactory } from '../../../spinner.js';

/** Progress of a sync on stderr: an ora spinner with a bar on a terminal, one plain line per event otherwise. */
export interface Progress {
  sending(part: number, parts: number, opsDone: number, opsTotal: number): void;
  waiting(seconds: number, why: string): void;
  sent(part: number, parts: number, ops: number, failed: number, ms: number, replayed: boolean): void;
  note(text: string): void;
  stop(): void;
}

const fmt = (n: number) => n.toLocaleString('en-US');

function bar(done: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** Runs `work` under output.ts's spinner where a spinner can be drawn; otherwise just runs it. */
export function spin<T>(text: string, work: () => Promise<T>, json: boolean): Promise<T> {
  return withSpinner(text, work, { json });
}

/** A spinner with a bar when stderr is a terminal (not CI); plain lines otherwise. */
export async function createProgress(): Promise<Progress> {
  if (!canSpin()) return plainProgress();
  const spinner = (await spinnerFactory())().start();
  let line = '';
  return {
    sending(part, parts, done, total) {
      line = `${bar(done, total)} ${fmt(done)}/${plural(total, 'operation')} · part ${part}/${parts}`;
      spinner.text = line;
    },
    waiting(seconds, why) {
      spinner.text = `${line} · waiting ${seconds} s (${why})`;
    },
    sent() {},
    note(text) {
      spinner.clear();
      process.stderr.write(`${text}\n`);
      spinner.render();
    },
    stop() {
      spinner.stop();
    },
  };
}

function plainProgress(): Progress {
  return {
    sending() {},
    waiting(seconds, why) {
      note(`waiting ${seconds} s: ${why}`);
    },
    sent(part, parts, ops, failed, ms, replayed) {
      const extra = [failed ? `${failed} failed` : '', replayed ? 'replayed' : ''].filter(Boolean).join(', ');
      note(`part ${part}/${parts}: ${plural(ops, 'operation')} in ${(ms / 1000).toFixed(1)} s${extra ? ` (${extra})` : ''}`);
    },
    note,
    stop() {},
  };
}
