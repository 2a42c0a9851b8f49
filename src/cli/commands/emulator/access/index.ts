import type { Command } from 'commander';
import { ACCESS_REQUEST_STATUSES } from '../../../../contract/enums.js';
import { choiceOption } from '../../../options.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

/**
 * `emulator access list | approve <id> | deny <id> --reason R | status <id>`: the access requests of a
 * sandbox started with `--access-requests open` (DESIGN: The operator's public test environment). The
 * operator's three take the admin token; the integrator's `status` takes the request's claim secret,
 * from stdin or MERCHANT_KIT_CLAIM_SECRET, never from a flag.
 */
export function registerAccess(emulator: Command): void {
  const access = emulator
    .command('access')
    .description("Integrators' requests for a test store: list, approve and deny them (operator), follow one (integrator)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator access list --status pending\n  $ merchant-kit emulator access approve acr_01J…\n' +
        '  $ merchant-kit emulator access deny acr_01J… --reason "Unknown company"\n  $ merchant-kit emulator access status acr_01J… < claim-secret.txt\n',
    );
  access
    .command('list')
    .description('The access requests, newest first (GET /_emulator/access-requests; admin token)')
    .option('--status <status>', `only these: ${ACCESS_REQUEST_STATUSES.join(', ')}`, choiceOption(ACCESS_REQUEST_STATUSES))
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator access list --status pending\n  $ merchant-kit --base-url https://sandbox.example.com emulator access list --json\n')
    .action(async (options: { status?: (typeof ACCESS_REQUEST_STATUSES)[number] }, command: Command) => (await import('./list.js')).accessListAction(options, command));
  access
    .command('approve')
    .argument('<id>', 'the request (acr_…)')
    .description("Approve a request: makes the integrator's test store and integration; they take its credential and store token with their claim secret (admin token)")
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator access approve acr_01J…\n')
    .action(async (id: string, _options: unknown, command: Command) => (await import('./decide.js')).accessApproveAction(id, command));
  access
    .command('deny')
    .argument('<id>', 'the request (acr_…)')
    .description('Deny a request with a reason the integrator reads (admin token)')
    .requiredOption('--reason <reason>', 'why (3 to 500 characters), shown to the integrator')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator access deny acr_01J… --reason "We do not know this company"\n')
    .action(async (id: string, options: { reason: string }, command: Command) => (await import('./decide.js')).accessDenyAction(id, options.reason, command));
  access
    .command('status')
    .argument('<id>', 'your request (acr_…)')
    .description('Follow your request with its claim secret (stdin, or MERCHANT_KIT_CLAIM_SECRET): pending, denied with the reason, or approved; the first read after approval shows your credential and store token, once')
    .addHelpText(
      'after',
      '\nThe claim secret is read from MERCHANT_KIT_CLAIM_SECRET, else from the first line of stdin (typed\n' +
        'without echo on a terminal); never from a flag, which would leave it in the process list.\n\n' +
        'Examples:\n  $ merchant-kit --base-url https://sandbox.example.com emulator access status acr_01J…\n' +
        '  $ merchant-kit emulator access status acr_01J… --json < claim-secret.txt\n',
    )
    .action(async (id: string, _options: unknown, command: Command) => (await import('./status.js')).accessStatusAction(id, command));
}
