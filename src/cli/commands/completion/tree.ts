import type { Argument, Command, Option } from 'commander';
import type { CompletionValues } from '../../options.js';

/** One option as completion needs it: its long flag, whether a value follows it, and the values to offer. */
export interface CompletionOption {
  flag: string;
  description: string;
  takesValue: boolean;
  values: CompletionValues | null;
}

/** One node of the command tree as completion needs it: its path, subcommands, long options and arguments' values. */
export interface CompletionNode {
  /** Space-separated command names from the root (`''` for the root, `'orders list'`). */
  path: string;
  description: string;
  subcommands: { name: string; description: string }[];
  options: CompletionOption[];
  /** Per positional argument, the values to offer (null: anything, such as an id). */
  args: (CompletionValues | null)[];
}

/** Values for options whose parser keeps the text as typed (the action checks it), by command path and flag. */
export type ExtraValues = Readonly<Record<string, Readonly<Record<string, CompletionValues>>>>;

/** commander keeps `--help` apart from `cmd.options`. */
const HELP: CompletionOption = { flag: '--help', description: 'show help', takesValue: false, values: null };

/** The values a parser from options.ts carries, or commander's own `.choices()`. */
function valuesOf(item: Option | Argument): CompletionValues | null {
  const parser = (item as { parseArg?: { completion?: CompletionValues } }).parseArg;
  if (parser?.completion && parser.completion.values.length > 0) return parser.completion;
  return item.argChoices?.length ? { values: item.argChoices, list: false } : null;
}

/**
 * Every command of the tree, depth first; the root's options (global flags) and `--help` are
 * offered everywhere, once; option and argument values come from their parsers (the contract's
 * value lists, see options.ts) or from `extra`.
 */
export function completionTree(root: Command, extra: ExtraValues = {}): CompletionNode[] {
  const globals = [...longOptions(root, ''), HELP];
  const nodes: CompletionNode[] = [];
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    // A command may declare a flag of its own under a global's name (`emulator start --json`).
    const own = path === '' ? [] : longOptions(cmd, path, extra);
    nodes.push({
      path,
      description: cmd.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      options: [...own, ...globals.filter((g) => !own.some((o) => o.flag === g.flag))],
      args: cmd.registeredArguments.map(valuesOf),
    });
    for (const sub of subs) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(root, '');
  return nodes;
}

function longOptions(cmd: Command, path: string, extra: ExtraValues = {}): CompletionOption[] {
  return cmd.options
    .filter((o) => o.long)
    .map((o) => ({
      flag: o.long!,
      description: o.description,
      takesValue: o.required || o.optional,
      values: valuesOf(o) ?? extra[path]?.[o.long!] ?? null,
    }));
}
