import type { Options, Ora } from 'ora';

// The one place the CLI makes ora spinners (ora is imported only here, lazily: `--help` never loads
// it). Every spinner is made with `discardStdin: false`. ora's default puts a terminal's stdin in raw
// mode and throws away whatever arrives while it spins: lines pasted after a command that shows a
// spinner (a block of the docs) would be read and silently dropped, and the shell would never run
// them. Without it, Ctrl+C still stops the command (the terminal sends SIGINT in its normal mode).

/** What a command may set; the stream and stdin handling are the factory's. */
export type SpinnerOptions = Omit<Options, 'stream' | 'discardStdin'>;

/**
 * Whether a spinner can be drawn: stderr is a terminal with a size (a pseudo-terminal of 0 columns
 * makes ora print endless lines), not CI, not `--json`. It decides only that (the docs runner counts
 * its question as drawing alone, docs/contributing.md): anything else a terminal changes asks itself.
 */
export function canSpin(json = false): boolean {
  return !json && Boolean(process.stderr.isTTY) && process.stderr.columns > 0 && !process.env.CI;
}

/** The settings every spinner gets, whatever the caller passes. */
export function spinnerOptions(options: SpinnerOptions = {}): Options {
  return { color: 'cyan', ...options, stream: process.stderr, discardStdin: false };
}

/** Loads ora and returns a synchronous factory of spinners on stderr that leave stdin alone. */
export async function spinnerFactory(): Promise<(options?: SpinnerOptions) => Ora> {
  const { default: ora } = await import('ora');
  return (options) => ora(spinnerOptions(options));
}
