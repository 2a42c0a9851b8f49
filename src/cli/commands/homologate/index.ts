import { Command, Option } from 'commander';
import { HOMOLOGATION_TIMEOUT } from '../../../contract/limits.js';
import { ALL_CHECK_IDS } from '../../../../checks/types.js';

/** `merchant-kit homologate`: the homologation checks, as the reference integrator or as an observer. */
export function register(program: Command): void {
  program
    .command('homologate')
    .description('Run the homologation checks against the base URL in use and write the reports (certificate when every mandatory check passes)')
    .option('--report-dir <dir>', 'folder for homologation.json, .junit.xml, .html and .md', 'homologation-report')
    .option('--format <list>', 'comma-separated: terminal,json,junit,html,md', 'terminal,json,junit,html,md')
    .option('--only <ids>', `comma-separated check ids (${ALL_CHECK_IDS.join(',')})`)
    .option('--observe', 'grade and certify your own ERP from its calls to the emulator (an observed session with your steps) instead of running the checks')
    .option('--integration <id>', 'the integration to observe (int_…), with --observe')
    .addOption(new Option('--timeout <seconds>', 'longest wait for a person, the feed or the observed ERP').default(String(HOMOLOGATION_TIMEOUT.default)))
    .option('--non-interactive', 'against a real environment: skip the steps that need a person in the panel')
    .option('--allow-live', 'run against a live credential (the catalog check writes to the real menu)')
    .option('--admin-token <token>', "the emulator's admin token, or with --observe your store's token (mks_…) (or MERCHANT_KIT_ADMIN_TOKEN)")
    .addHelpText(
      'after',
      `
Against an emulator (found through /_emulator/health) the run is automatic: merchant-kit's reference
integrator, on a store and integration of its own (yours are not touched). Only --observe grades and
certifies your ERP: it prints the steps you do in your ERP as they open. Exit code 0 when every
mandatory check passes (with --only: every selected check); 1 otherwise; 2 for usage errors.

Examples:
  $ merchant-kit homologate --report-dir reports
  $ merchant-kit homologate --observe --integration int_… --timeout 300`,
    )
    .action(async (_options: unknown, command: Command) => {
      const { homologateAction } = await import('./action.js');
      await homologateAction(command);
    });
}
