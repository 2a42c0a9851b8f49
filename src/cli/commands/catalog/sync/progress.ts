import { note, withSpinner } from '../../../output.js';

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

/**
 * A terminal that can redraw a line. A pseudo-terminal without a size (columns 0) makes ora clear
 * endless lines, so it gets plain lines too.
 */
const canAnimate = () => Boolean(process.stderr.isTTY && process.stderr.columns > 0 && !process.env.CI);

/** Runs `work` under output.ts's spinner where a spinner can be drawn; otherwise just runs it. */
export function spin<T>(text: string, work: () => Promise<T>, json: boolean): Promise<T> {
  return canAnimate() ? withSpinner(text, work, { json }) : work();
}

/** ora (loaded only here) when stderr is a terminal and not CI; plain lines otherwise. */
export async function createProgress(): Promise<Progress> {
  if (!canAnimate()) return plainProgress();
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: process.stderr, color: 'cyan' }).start();
  let line = '';
  return {
    sending(part, parts, done, total) {
      line = `${bar(done, total)} ${fmt(done)}/${fmt(total)} operations · part ${part}/${parts}`;
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
      note(`part ${part}/${parts}: ${fmt(ops)} operation${ops === 1 ? '' : 's'} in ${(ms / 1000).toFixed(1)} s${extra ? ` (${extra})` : ''}`);
    },
    note,
    stop() {},
  };
}
