import type { Command } from 'commander';
import { REQUEST_LOG_SIZE } from '../../../../contract/limits.js';
import { intOption } from '../../../options.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

export interface LogsTailOptions {
  status?: string;
  path?: string;
  last: number;
  follow: boolean;
}

/** `emulator logs tail`: the emulator's request log (GET /_emulator/logs), like `stripe logs tail`. */
export function registerLogs(emulator: Command): void {
  const logs = emulator
    .command('logs')
    .description("The emulator's request log: every API request it answered (never bodies, headers or secrets)")
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator logs tail\n  $ merchant-kit emulator logs tail --status 4xx,5xx --path "/sandbox/v1/orders/**"\n');
  logs
    .command('tail')
    .description('Print API requests as the emulator answers them: time, status, method, path, error code, duration, request id')
    .option('--status <list>', 'only these statuses, comma-separated: exact (409) or a class (4xx)')
    .option('--path <glob>', 'only paths matching: * within a segment, ** across segments (/sandbox/v1/orders/**)')
    .option('--last <n>', `first print up to n requests already in the log (it keeps the last ${REQUEST_LOG_SIZE})`, intOption('--last', 0, REQUEST_LOG_SIZE), 0)
    .option('--no-follow', 'print what --last found and exit instead of waiting for new requests')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nWith --json, one JSON object per request per line. Ctrl+C stops it.\n\n' +
        'Examples:\n  $ merchant-kit emulator logs tail --status 4xx,409\n  $ merchant-kit emulator logs tail --last 20 --no-follow --json\n',
    )
    .action(async (options: LogsTailOptions, command: Command) => (await import('./tail.js')).logsTailAction(options, command));
}
