import { InvalidArgumentError, type Command } from 'commander';
import { intOption } from '../../../options.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

export interface ChaosSetOptions {
  duplicateRate?: number;
  reorder?: boolean;
  delayMs?: number;
}

/** A decimal number (`0.25`); its bounds are the API's to check. */
function decimal(name: string) {
  return (value: string): number => {
    if (!/^\s*\d+(\.\d+)?\s*$/.test(value)) throw new InvalidArgumentError(`${name} must be a number such as 0.25.`);
    return Number(value);
  };
}

/** `emulator chaos [show] | set | clear`: outbound webhook delivery chaos (GET, POST, DELETE /_emulator/webhooks/chaos). */
export function registerChaos(emulator: Command): void {
  const chaos = emulator
    .command('chaos')
    .description('Webhook delivery chaos for testing receivers: duplicates, reordering, delays')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator chaos set --duplicate-rate 0.2 --reorder\n  $ merchant-kit emulator chaos clear\n');
  chaos
    .command('show', { isDefault: true })
    .description('Show the delivery chaos in force (GET /_emulator/webhooks/chaos)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator chaos show\n  $ merchant-kit emulator chaos --json\n')
    .action(async (_options: unknown, command: Command) => (await import('./show.js')).chaosShowAction(command));
  chaos
    .command('set')
    .description('Change the delivery chaos; settings not given keep their value (POST /_emulator/webhooks/chaos)')
    .option('--duplicate-rate <fraction>', 'share of deliveries sent twice, 0 to 1', decimal('--duplicate-rate'))
    .option('--reorder', 'deliveries due together go out in reverse order')
    .option('--no-reorder', 'deliveries go out in order')
    .option('--delay-ms <ms>', 'wait before each delivery', intOption('--delay-ms', 0, Number.MAX_SAFE_INTEGER))
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator chaos set --duplicate-rate 0.2\n  $ merchant-kit emulator chaos set --reorder --delay-ms 500 --json\n',
    )
    .action(async (options: ChaosSetOptions, command: Command) => (await import('./set.js')).chaosSetAction(options, command));
  chaos
    .command('clear')
    .description('Back to plain deliveries: once each, in order, without delay (DELETE /_emulator/webhooks/chaos)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator chaos clear\n  $ merchant-kit emulator chaos clear --json\n')
    .action(async (_options: unknown, command: Command) => (await import('./clear.js')).chaosClearAction(command));
}
