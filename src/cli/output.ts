
// One output module for every command: tables and summaries for people, the API's `data` for
// `--json`, one JSON object per line for streams. Only stdout carries results; notes, progress and
// errors go to stderr so that `--json` output stays parseable.

/** The colour level for a stream: NO_COLOR (non-empty) turns colours off unless FORCE_COLOR is set; chalk handles FORCE_COLOR and non-TTY. */
function colourLevel(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): 0 | 1 | 2 | 3 {
  if (env.FORCE_COLOR !== undefined) {
    if (env.FORCE_COLOR === 'false' || env.FORCE_COLOR === '0') return 0;
    const n = Number.parseInt(env.FORCE_COLOR, 10);
    return (Number.isInteger(n) ? Math.min(Math.max(n, 1), 3) : 1) as 1 | 2 | 3;
  }
  if (env.NO_COLOR) return 0;
  if (!stream.isTTY) return 0;
  const depth = stream.getColorDepth?.() ?? 1;
  return depth >= 24 ? 3 : depth >= 8 ? 2 : 1;
}

/** The styles the CLI paints with (chalk's, one at a time). */
export interface Colours {
  green(text: string | number): string;
  red(text: string | number): string;
  yellow(text: string | number): string;
  cyan(text: string | number): string;
  dim(text: string | number): string;
  bold(text: string | number): string;
}

const same = (text: string | number) => `${text}`;
/** A stream without colours: the text as it is. */
const PLAIN: Colours = { green: same, red: same, yellow: same, cyan: same, dim: same, bold: same };

const outLevel = colourLevel(process.stdout);
const errLevel = colourLevel(process.stderr);
// chalk loads only when a stream is painted (issue 27): under NO_COLOR, on pipes and files (scripts,
// CI, the tests) a command does not load it. The levels are read once, when a command loads this module.
const chalk = outLevel > 0 || errLevel > 0 ? await import('chalk') : null;

let stdoutColours: Colours | undefined;
let stderrColours: Colours | undefined;

/** Colours for stdout (results). */
export function colors(): Colours {
  stdoutColours ??= chalk && outLevel > 0 ? new chalk.Chalk({ level: outLevel }) : PLAIN;
  return stdoutColours;
}

/** Colours for stderr (notes, warnings, errors). */
export function errColors(): Colours {
  stderrColours ??= chalk && errLevel > 0 ? new chalk.Chalk({ level: errLevel }) : PLAIN;
  return stderrColours;
}

export { plural } from '../text/plural.js';

/** The API's `data` (or any value), indented, on stdout. */
export function printJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/** One JSON object on one line: a stream of events (`listen`, `feed tail`). */
export function printNdjson(obj: unknown): void {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/**
 * The first stdout line of a long-running command under --json (`listen`, `feed tail`, `emulator logs
 * tail`, `proxy`; `emulator start` and `balance` write DESIGN's own): what it serves, then its pid, so
 * that a script can stop it (under npx, `$!` is npx's pid, and npx passes a signal only to a shell).
 */
export function printReadyJson(fields: Record<string, unknown>): void {
  printNdjson({ event: 'ready', ...fields, pid: process.pid });
}

/** A line for people on stderr (never mixed into results). */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** A line of human output on stdout. */
export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export interface Column<T> {
  header: string;
  /** The cell's text; `null`/`undefined` print as `-`. */
  value: (row: T) => unknown;
  align?: 'left' | 'right';
}

function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows as an aligned text table (no trailing spaces); an empty list prints `emptyText`. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (parts: string[]) =>
    parts
      .map((p, i) => (columns[i].align === 'right' ? p.padStart(widths[i]) : i === parts.length - 1 ? p : p.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const header = colors().bold(line(columns.map((c) => c.header)));
  return [header, ...cells.map(line)].join('\n');
}

/** An aligned table on stdout, or `emptyText` when there are no rows. */
export function printTable<T>(rows: readonly T[], columns: readonly Column<T>[], emptyText = 'Nothing to show.'): void {
  if (rows.length === 0) {
    printLine(colors().dim(emptyText));
    return;
  }
  printLine(formatTable(rows, columns));
}

/** `label  value` lines, labels aligned; `undefined` values are skipped, `null` prints as `-`. */
function formatSummary(fields: readonly (readonly [string, unknown])[]): string {
  const shown = fields.filter(([, v]) => v !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${colors().dim(`${k}:`.padEnd(width + 1))}  ${cell(v)}`).join('\n');
}

/** A short summary of one resource on stdout. */
export function printSummary(fields: readonly (readonly [string, unknown])[]): void {
  printLine(formatSummary(fields));
}

/** `--json` prints `data` as is; otherwise `human()` prints for people. */
export function emit<T>(json: boolean | undefined, data: T, human: (data: T) => void): void {
  if (json) printJson(data);
  else human(data);
}

/**
 * Runs `work` under a spinner on stderr when one can be drawn (a terminal, not CI, not `--json`);
 * otherwise just runs it. ora is loaded by spinner.ts only when a spinner is shown.
 */
export async function withSpinner<T>(text: string, work: () => Promise<T>, options: { json?: boolean } = {}): Promise<T> {
  const { canSpin, spinnerFactory } = await import('./spinner.js');
  if (!canSpin(options.json)) return work();
  const spinner = (await spinnerFactory())({ text }).start();
  try {
    const result = await work();
    spinner.succeed();
    return result;
  } catch (error) {
    spinner.fail();
    throw error;
  }
}
