import type { Command } from 'commander';

/** One node of the command tree as completion needs it: its path, subcommands and long options. */
export interface CompletionNode {
  /** Space-separated command names from the root (`''` for the root, `'orders list'`). */
  path: string;
  description: string;
  subcommands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

/** commander keeps `--help` apart from `cmd.options`. */
const HELP = { flag: '--help', description: 'show help' };

/** Every command of the tree, depth first; the root's options (global flags) and `--help` are offered everywhere, once. */
export function completionTree(root: Command): CompletionNode[] {
  const globals = [...longOptions(root), HELP];
  const nodes: CompletionNode[] = [];
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    // A command may declare a flag of its own under a global's name (`emulator start --json`).
    const own = path === '' ? [] : longOptions(cmd);
    nodes.push({
      path,
      description: cmd.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      options: [...own, ...globals.filter((g) => !own.some((o) => o.flag === g.flag))],
    });
    for (const sub of subs) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(root, '');
  return nodes;
}

function longOptions(cmd: Command): { flag: string; description: string }[] {
  return cmd.options.filter((o) => o.long).map((o) => ({ flag: o.long!, description: o.description }));
}
