import type { Command } from 'commander';
import { intOption } from '../../../options.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

export interface FaultAddOptions {
  method?: string;
  path: string;
  status?: number;
  code?: string;
  retryAfter?: number;
  delayMs?: number;
  times?: number;
}

const anyInt = (name: string) => intOption(name, 0, Number.MAX_SAFE_INTEGER);

/** `emulator faults [list] | add | clear`: injected API failures (GET, POST, DELETE /_emulator/faults). */
export function registerFaults(emulator: Command): void {
  const faults = emulator
    .command('faults')
    .description('Make the next matching API calls fail or slow down, for retry testing')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator faults add --path "/sandbox/v1/orders/*/ack" --status 503 --times 2\n  $ merchant-kit emulator faults clear\n');
  faults
    .command('list', { isDefault: true })
    .description('List the faults still armed, with the uses left (GET /_emulator/faults)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator faults list\n  $ merchant-kit emulator faults --json\n')
    .action(async (_options: unknown, command: Command) => (await import('./list.js')).faultsListAction(command));
  faults
    .command('add')
    .description('Arm a fault: the next matching calls answer as told, before they run (POST /_emulator/faults)')
    .requiredOption('--path <glob>', 'the full path: * within a segment, ** across segments (/sandbox/v1/orders/*/ack)')
    .option('--method <method>', 'GET, POST, PUT, PATCH or DELETE (any method when absent)')
    .option('--status <status>', 'the HTTP status to answer, 400 to 599', anyInt('--status'))
    .option('--code <code>', "the error code (default: the spec's code for the status)")
    .option('--retry-after <seconds>', 'Retry-After to send (429 and 503 send 1 unless told)', anyInt('--retry-after'))
    .option('--delay-ms <ms>', 'wait before answering; without --status the call then runs normally', anyInt('--delay-ms'))
    .option('--times <n>', 'how many calls it answers (default 1)', anyInt('--times'))
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator faults add --method GET --path "/sandbox/v1/orders" --status 503 --retry-after 5 --times 2\n' +
        '  $ merchant-kit emulator faults add --path "/sandbox/v1/**" --delay-ms 2000\n',
    )
    .action(async (options: FaultAddOptions, command: Command) => (await import('./add.js')).faultsAddAction(options, command));
  faults
    .command('clear')
    .description('Remove every armed fault (DELETE /_emulator/faults)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator faults clear\n  $ merchant-kit emulator faults clear --json\n')
    .action(async (_options: unknown, command: Command) => (await import('./clear.js')).faultsClearAction(command));
}
