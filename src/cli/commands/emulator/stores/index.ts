import type { Command } from 'commander';
import { choiceOption } from '../../../options.js';
import { ENVIRONMENTS } from '../../../../contract/enums.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

/**
 * `emulator stores create` and `emulator stores token <store_id>`: a team sandbox's operator makes
 * an integrator's store and hands over its credential and store token (POST /_emulator/stores,
 * POST|DELETE /_emulator/stores/{store_id}/token), without curl.
 */
export function registerStores(emulator: Command): void {
  const stores = emulator
    .command('stores')
    .description("Make a store for an integrator, and replace or stop its store token (the admin token's work on a team sandbox)")
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator stores create --name "Pizzería Ana"\n  $ merchant-kit emulator stores token str_01J… --revoke\n');
  stores
    .command('create')
    .description('A new store with its integration (every scope): prints its credential and its store token, each shown once (POST /_emulator/stores)')
    .option('--environment <env>', 'test (the sandbox) or live', choiceOption(ENVIRONMENTS), 'test')
    .option('--name <name>', "the store's name")
    .option('--slug <slug>', "the store's slug (lowercase letters, digits and hyphens)")
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nHand the integrator the credential (for their ERP) and the store token (for the CLI, the panel and\n' +
        'homologate --observe on their own store). Neither is shown again.\n\n' +
        'Examples:\n  $ merchant-kit emulator stores create --name "Pizzería Ana"\n  $ merchant-kit emulator stores create --environment live --json\n',
    )
    .action(async (options: { environment: 'test' | 'live'; name?: string; slug?: string }, command: Command) =>
      (await import('./create.js')).storesCreateAction(options, command),
    );
  stores
    .command('token')
    .argument('<store_id>', 'the store (str_…)')
    .description("A new store token for the store, shown once; the previous one stops on every process at once (POST /_emulator/stores/{store_id}/token)")
    .option('--revoke', 'stop the store token without a new one (DELETE)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator stores token str_01J…\n  $ merchant-kit emulator stores token str_01J… --revoke\n')
    .action(async (storeId: string, options: { revoke?: boolean }, command: Command) => (await import('./token.js')).storesTokenAction(storeId, options, command));
}
