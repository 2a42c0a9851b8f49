import type { Command } from 'commander';
import { intOption } from '../../options.js';

export interface BalanceOptions {
  to?: string[];
  port: number;
  host: string;
  json?: boolean;
  verbose?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** `emulator balance --to URL --to URL`: a round-robin load balancer in front of one team sandbox's processes. */
export function registerBalance(emulator: Command): void {
  emulator
    .command('balance')
    .description('Spread requests over the processes of one team sandbox (round-robin; docs/team-sandbox.md)')
    .option('--to <url>', 'an emulator process, http://HOST:PORT (repeat for each process)', collect)
    .option('--port <n>', 'port to listen on (0 = any free port)', intOption('--port', 0, 65535), 4010)
    .option('--host <host>', 'address to listen on (non-loopback: every emulator behind must ask for a token)', '127.0.0.1')
    .option('--json', 'print one JSON "ready" line on stdout once listening')
    .addHelpText(
      'after',
      '\nEach request goes to the next process in turn; one that refuses the connection is skipped (and\n' +
        'left out for 3 s); 502 upstream_unavailable when none answers. Bodies and event streams pass as they come.\n' +
        '\nExamples:\n  $ merchant-kit emulator balance --to http://127.0.0.1:4011 --to http://127.0.0.1:4012\n' +
        '  $ merchant-kit emulator balance --to http://10.0.0.5:4010 --to http://10.0.0.6:4010 --host 0.0.0.0 --port 8080\n',
    )
    .action(async (options: BalanceOptions, command: Command) => {
      const globals = command.optsWithGlobals();
      await (await import('./balance-run.js')).balanceAction({ ...options, json: options.json ?? globals.json, verbose: globals.verbose });
    });
}
