import type { Command } from 'commander';

/** One node of the command tree as completion needs it: its path, subcommands and long options. */
export interface CompletionNode {
  /** Space-separated command names from the root (`''` for the root, `'orders list'`). */
  path: string;
  description: string;
  subcommands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

/** Every command of the tree, depth first; the root's options (global flags) are offered everywhere. */
export function completionTree(root: Command): CompletionNode[] {
  const globals = longOptions(root);
  const nodes: CompletionNode[] = [];
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    nodes.push({
      path,
      description: cmd.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      options: path === '' ? globals : [...longOptions(cmd), ...globals],
    });
    for (const sub of subs) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(root, '');
  return nodes;
}

function longOptions(cmd: Command): { flag: string; description: string }[] {
  const out = cmd.options.filter((o) => o.long).map((o) => ({ flag: o.long!, description: o.description }));
  out.push({ flag: '--help', description: 'show help' });
  return out;
}
