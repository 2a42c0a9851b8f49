import type { Command } from 'commander';
import { choiceOption, intOption } from '../../../options.js';
import { ENVIRONMENTS } from '../../../../contract/enums.js';
import type { Environment } from '../../../../contract/store.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

export interface IssueOptions {
  environment: Environment;
  integration?: string;
  overlapHours: number;
}

/**
 * `emulator credentials issue`: a new credential for a demo store (or any integration), printed once
 * (POST /_emulator/integrations/{id}/credentials). Day two of a data folder: its banner shows key ids
 * only, since the credentials were shown when the folder was made.
 */
export function registerCredentials(emulator: Command): void {
  const credentials = emulator
    .command('credentials')
    .description('Credentials of the emulator\'s integrations: a new one for a demo store, shown once')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator credentials issue\n  $ merchant-kit emulator credentials issue --environment live --json\n');
  credentials
    .command('issue')
    .description("A new credential for the environment's demo store (or --integration), printed once on stdout; the integration's other credentials expire after --overlap-hours (POST /_emulator/integrations/{id}/credentials)")
    .option('--environment <env>', 'the demo store of test (the sandbox) or live', choiceOption(ENVIRONMENTS), 'test')
    .option('--integration <id>', 'another integration (int_…) instead of the demo store\'s; with a store token, your store\'s is found by itself')
    .option('--overlap-hours <n>', 'how long the integration\'s other credentials keep working, 0 to 72', intOption('--overlap-hours', 0, 72), 72)
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nstdout gets the credential alone (details on stderr), so it can go straight into a profile or a variable.\n\n' +
        'Examples:\n  $ merchant-kit emulator credentials issue | merchant-kit profile add sandbox --base-url http://127.0.0.1:4010/sandbox/v1 --credential-stdin\n' +
        '  $ export MERCHANT_KIT_CREDENTIAL="$(merchant-kit emulator credentials issue)"\n' +
        '  $ merchant-kit emulator credentials issue --environment live --overlap-hours 0 --json\n',
    )
    .action(async (options: IssueOptions, command: Command) => (await import('./issue.js')).credentialsIssueAction(options, command));
}
