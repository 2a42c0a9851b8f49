import type { Command } from 'commander';

/** `merchant-kit me`: GET /me, the integration's context. */
export function register(program: Command): void {
  program
    .command('me')
    .description('Show the integration behind the credential (GET /me): store, environment, scopes, settings')
    .addHelpText('after', '\nExample:\n  $ merchant-kit me --json')
    .action(async (_options: unknown, command: Command) => {
      const { meAction } = await import('./me.js');
      await meAction(command);
    });
}
