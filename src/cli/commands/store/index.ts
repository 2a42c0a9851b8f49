import type { Command } from 'commander';

/** `merchant-kit store get|open|pause`: GET and PATCH /store. */
export function register(program: Command): void {
  const store = program
    .command('store')
    .description('The store: read it, open or pause order intake')
    .addHelpText('after', '\nExample:\n  $ merchant-kit store get');
  store
    .command('get')
    .description('Show the store (GET /store)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit store get --json')
    .action(async (_o: unknown, command: Command) => (await import('./get.js')).storeGetAction(command));
  store
    .command('open')
    .description('Start receiving orders (PATCH /store accepting_orders=true; needs an active product)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit store open')
    .action(async (_o: unknown, command: Command) => (await import('./switch.js')).storeSwitchAction(command, true));
  store
    .command('pause')
    .description('Stop receiving orders (PATCH /store accepting_orders=false)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit store pause')
    .action(async (_o: unknown, command: Command) => (await import('./switch.js')).storeSwitchAction(command, false));
}
