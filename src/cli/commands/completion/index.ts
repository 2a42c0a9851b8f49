import type { Command } from 'commander';
import { choiceOption } from '../../options.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** `merchant-kit completion bash|zsh|fish`: a completion script generated from the command tree. */
export function register(program: Command): void {
  program
    .command('completion')
    .description(`Print a shell completion script (${SHELLS.join(', ')})`)
    .argument('<shell>', SHELLS.join(', '), choiceOption(SHELLS))
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit completion bash > ~/.local/share/bash-completion/completions/merchant-kit\n' +
        '  $ merchant-kit completion zsh > "${fpath[1]}/_merchant-kit"\n' +
        '  $ merchant-kit completion fish > ~/.config/fish/completions/merchant-kit.fish',
    )
    .action(async (shell: (typeof SHELLS)[number], _o: unknown, command: Command) => {
      const { completionScript } = await import('./script.js');
      let root = command;
      while (root.parent) root = root.parent;
      process.stdout.write(completionScript(shell, root));
    });
}
