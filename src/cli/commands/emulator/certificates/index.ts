import type { Command } from 'commander';
import { intOption } from '../../../options.js';
import { ADMIN_TOKEN_HELP } from '../control-url.js';

/**
 * `emulator certificates list | revoke <id> | rotate-key`: the certificates a sandbox issued to
 * certified observed sessions, and its signing key (admin token). Verifying one is
 * `merchant-kit certificate verify`, for anyone.
 */
export function registerCertificates(emulator: Command): void {
  const certificates = emulator
    .command('certificates')
    .description('The certificates the sandbox issued: list and revoke them, rotate its signing key (admin token)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator certificates list\n  $ merchant-kit emulator certificates revoke crt_01J…\n  $ merchant-kit emulator certificates rotate-key\n',
    );
  certificates
    .command('list', { isDefault: true })
    .description('The certificates issued, newest first (GET /_emulator/certificates)')
    .option('--limit <n>', 'at most this many (1 to 500, default 100)', intOption('--limit', 1, 500))
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator certificates list\n  $ merchant-kit emulator certificates list --limit 10 --json\n')
    .action(async (options: { limit?: number }, command: Command) => (await import('./actions.js')).certificatesListAction(options, command));
  certificates
    .command('revoke')
    .argument('<id>', 'the certificate (crt_…)')
    .description('Revoke a certificate: it is published in GET /_emulator/certificates/revoked, and verification says "revoked"')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator certificates revoke crt_01J…\n')
    .action(async (id: string, _options: unknown, command: Command) => (await import('./actions.js')).certificatesRevokeAction(id, command));
  certificates
    .command('rotate-key')
    .description('A new signing key for the certificates from now on; the previous keys stay published, so what they signed stays verifiable')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator certificates rotate-key\n')
    .action(async (_options: unknown, command: Command) => (await import('./actions.js')).certificatesRotateAction(command));
}
