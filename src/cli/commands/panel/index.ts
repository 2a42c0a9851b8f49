import type { Command } from 'commander';
import { ADMIN_TOKEN_HELP } from '../emulator/control-url.js';

/** `merchant-kit panel`: the emulator's merchant panel in the browser. */
export function register(program: Command): void {
  program
    .command('panel')
    .description("Open the emulator's merchant panel in the browser (prints its URL)")
    .option('--no-open', 'only print the URL')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nThe emulator is found from the base URL in use (default http://127.0.0.1:4010). The browser opens only when\n' +
        'the output is a terminal; the page asks for the token itself when the emulator has one (the admin token, or your\n' +
        "store's token: then the panel shows your store only).\n\n" +
        'Examples:\n  $ merchant-kit panel\n  $ merchant-kit --base-url http://127.0.0.1:4011 panel --no-open\n',
    )
    .action(async (options: { open: boolean }, command: Command) => (await import('./open.js')).panelAction(options, command));
}
