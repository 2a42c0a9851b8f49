import type { Command } from 'commander';
import { ADMIN_TOKEN_HELP } from '../control-url.js';
import { durationOption } from '../duration.js';

/** `emulator clock [show]` and `emulator clock advance <duration>`: the emulator's clock (GET, POST /_emulator/clock…). */
export function registerClock(emulator: Command): void {
  const clock = emulator
    .command('clock')
    .description("The emulator's clock: show it, or move it forward (retries, expiries and alerts that fall due happen)")
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator clock\n  $ merchant-kit emulator clock advance 15m\n');
  clock
    .command('show', { isDefault: true })
    .description("Show the emulator's time, its mode (system or manual) and how far it was advanced (GET /_emulator/clock)")
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator clock show\n  $ merchant-kit emulator clock --json\n')
    .action(async (_options: unknown, command: Command) => (await import('./show.js')).clockShowAction(command));
  clock
    .command('advance')
    .argument('<duration>', 'how far: 90s, 15m, 2h, 1d, 1h30m or seconds', durationOption('<duration>', 0, Number.MAX_SAFE_INTEGER))
    .description('Move the clock forward: 90s, 15m, 2h, 1d, 1h30m or a number of seconds (POST /_emulator/clock/advance)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nWebhook retries, credential and snapshot expiries, rate-limit windows and ack alerts that fall due happen at once.\n\n' +
        'Examples:\n  $ merchant-kit emulator clock advance 90s\n  $ merchant-kit emulator clock advance 1h30m --json\n',
    )
    .action(async (seconds: number, _options: unknown, command: Command) => (await import('./advance.js')).clockAdvanceAction(seconds, command));
}
