import type { Command } from 'commander';

/** `merchant-kit profile add|list|use|remove`: credential profiles, stored encrypted. */
export function register(program: Command): void {
  const profile = program
    .command('profile')
    .description('Credential profiles (base URL + credential), stored AES-256-GCM encrypted in the config folder')
    .addHelpText('after', '\nExample:\n  $ merchant-kit profile add sandbox --base-url http://127.0.0.1:4010/sandbox/v1');
  profile
    .command('add <name>')
    .description('Add (or replace) a profile: asks for the credential without echo, or reads it with --credential-stdin; checks it with GET /me')
    .addHelpText(
      'after',
      '\nThe base URL comes from --base-url (or MERCHANT_KIT_BASE_URL). The first profile becomes the active one.\n\n' +
        'Examples:\n  $ merchant-kit profile add sandbox --base-url http://127.0.0.1:4010/sandbox/v1\n' +
        '  $ echo "$CREDENTIAL" | merchant-kit profile add sandbox --base-url http://127.0.0.1:4010/sandbox/v1 --credential-stdin',
    )
    .action(async (name: string, _o: unknown, command: Command) => (await import('./add.js')).profileAddAction(name, command));
  profile
    .command('list')
    .description('List profiles: name, base URL, environment, store, key id (never the secret)')
    .addHelpText('after', '\nExample:\n  $ merchant-kit profile list --json')
    .action(async (_o: unknown, command: Command) => (await import('./list.js')).profileListAction(command));
  profile
    .command('use <name>')
    .description('Make a profile the active one')
    .addHelpText('after', '\nExample:\n  $ merchant-kit profile use sandbox')
    .action(async (name: string, _o: unknown, command: Command) => (await import('./manage.js')).profileUseAction(name, command));
  profile
    .command('remove <name>')
    .description('Remove a profile and its encrypted credential')
    .addHelpText('after', '\nExample:\n  $ merchant-kit profile remove sandbox')
    .action(async (name: string, _o: unknown, command: Command) => (await import('./manage.js')).profileRemoveAction(name, command));
}
