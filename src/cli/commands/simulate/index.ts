import type { Command } from 'commander';
import { SIMULATOR_SCENARIOS, choiceOption, intOption } from '../../options.js';

export interface SimulateOptions {
  scenario: (typeof SIMULATOR_SCENARIOS)[number];
  count: number;
  adminToken?: string;
}

/** `merchant-kit simulate order`: the sandbox's order simulator, on an emulator. */
export function register(program: Command): void {
  const simulate = program
    .command('simulate')
    .description("Emulator only: play the customer (the sandbox's order simulator)")
    .addHelpText('after', '\nExample:\n  $ merchant-kit simulate order --scenario delivery');
  simulate
    .command('order')
    .description('Place simulated orders in the store of the credential in use (POST /_emulator/orders)')
    .option('--scenario <name>', `${SIMULATOR_SCENARIOS.join(', ')}`, choiceOption(SIMULATOR_SCENARIOS), 'delivery')
    .option('--count <n>', 'how many orders, 1 to 100', intOption('--count', 1, 100), 1)
    .option('--admin-token <token>', 'control API token of an emulator started with --admin-token (or MERCHANT_KIT_ADMIN_TOKEN)')
    .addHelpText(
      'after',
      '\nThe store needs an active product and must be accepting orders (merchant-kit store open).\n\nExamples:\n  $ merchant-kit simulate order\n  $ merchant-kit simulate order --scenario pickup_invoice --count 3 --json',
    )
    .action(async (options: SimulateOptions, command: Command) => (await import('./order.js')).simulateOrderAction(options, command));
}
