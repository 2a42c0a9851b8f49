import { Command, CommanderError, InvalidArgumentError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { describeError, USAGE_ERROR, type JsonError } from './errors.js';
import { redactSecrets } from '../logging/redact.js';
import { runCleanups } from './cleanup.js';
import { COMMAND_GROUPS } from './commands/index.js';
import { stopWhenParentGoes } from './parent-watch.js';

// The program: global flags, every command group, and the one place that maps errors to exit codes
// (0 success, 1 API or check failure, 2 usage). Groups import their actions lazily, so `--help` and
// `--version` load only commander and this file's small imports.

// With --json an error is one JSON object on stderr (docs/cli.md, Errors), commander's own included:
// its lines are kept from stderr and reported by the catch below instead.
const json = process.argv.includes('--json');
const verbose = process.argv.includes('--verbose');
let commanderMessage: string | null = null;

const program = new Command()
  .name('merchant-kit')
  .description('Emulator, CLI and homologation tester for the merchant API v1')
  .version(pkg.version, '-V, --version', 'print the version and exit')
  .helpOption('-h, --help', 'show help for a command')
  .helpCommand('help [command]', 'show help for a command')
  .option('--profile <name>', 'credential profile to use (see: merchant-kit profile list)')
  .option('--base-url <url>', 'API base URL, e.g. http://127.0.0.1:4010/sandbox/v1 (https:// except loopback)')
  .option('--credential-stdin', 'read the credential (svk_….svs_…) from one line of stdin')
  .option('--json', 'machine-readable output: the API data as JSON')
  .option('--verbose', 'more detail on stderr (stack traces, redacted)')
  .configureHelp({ showGlobalOptions: true })
  .exitOverride()
  // commander quotes a rejected value as typed (`argument 'svs_test_…' is invalid`): its error lines
  // go through the same redaction as ours. Subcommands inherit this when they are created below.
  .configureOutput(
    json
      ? { outputError: (text) => void (commanderMessage ??= text.trim()), writeErr: () => undefined }
      : { outputError: (text, write) => write(redactSecrets(text)) },
  )
  .showHelpAfterError(json ? false : '(add --help for usage)')
  .addHelpText(
    'after',
    `
Target: flags first, then MERCHANT_KIT_BASE_URL / MERCHANT_KIT_CREDENTIAL / MERCHANT_KIT_PROFILE,
then the active profile. Exit codes: 0 success, 1 API or check failure, 2 usage error.

Example:
  $ merchant-kit emulator start &
  $ export MERCHANT_KIT_BASE_URL=http://127.0.0.1:4010/sandbox/v1
  $ export MERCHANT_KIT_CREDENTIAL=svk_test_….svs_test_…
  $ merchant-kit orders list --ack-status pending`,
  );

/**
 * The command group argv names: its first word that is neither a global flag nor a global flag's
 * value (`--profile x orders list` names orders).
 */
function namedGroup(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    // The program's own help (`--help orders` prints it) lists every group.
    if (arg === '--' || arg === '-h' || arg === '--help') return undefined;
    if (!arg.startsWith('-')) return arg;
    if (program.options.some((option) => option.required && (option.long === arg || option.short === arg))) i++;
  }
  return undefined;
}

// A command registers its own group alone (registering all 18 cost ~10 ms, more on a busy machine).
// Everything else gets them all, as before: bare `merchant-kit`, `--help …`, `help …`, `completion`
// (the scripts list every command), and an unknown word (commander suggests the nearest group).
const named = namedGroup(process.argv);
const only = named === 'completion' ? undefined : COMMAND_GROUPS.find((group) => group.command === named);
for (const register of only ? [only] : COMMAND_GROUPS) register(program);

// An empty argument (`orders get ""`, an unset shell variable) names no order, delivery or file: a
// usage error before any call, for every command at once.
program.hook('preAction', (_program, action) => {
  const empty = action.registeredArguments.findIndex((_a, i) => {
    const value = action.processedArgs[i];
    return typeof value === 'string' && value.trim() === '';
  });
  if (empty >= 0) throw new InvalidArgumentError(`the argument <${action.registeredArguments[empty].name()}> of "${action.name()}" is empty.`);
});

// Under npx or npm start, a long-running command stops when npm goes away (parent-watch.ts).
stopWhenParentGoes();

// `merchant-kit … | head`: a closed pipe ends the command quietly, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

/** One JSON object on one line of stderr: the last line of stderr is always the error under --json. */
function writeJsonError(body: JsonError): void {
  process.stderr.write(`${JSON.stringify(body)}\n`);
}

/** A usage error (exit 2): one line for people, or one JSON object with code `usage_error`. */
function reportUsage(message: string): void {
  const text = redactSecrets(message.replace(/^error:\s*/, ''));
  if (json) writeJsonError({ error: { status: null, code: USAGE_ERROR, message: text, details: null, request_id: null } });
  else process.stderr.write(`error: ${text}\n`);
  process.exitCode = 2;
}

try {
  // Bare `merchant-kit` asks what there is: the help on stdout, exit 0 (commander would print it on
  // stderr as an error). A group without its subcommand (`merchant-kit orders`) stays a usage error.
  if (process.argv.length <= 2) program.help();
  await program.parseAsync(process.argv);
  await runCleanups();
} catch (error) {
  await runCleanups().catch(() => undefined);
  if (error instanceof InvalidArgumentError) {
    // Thrown by an action's own check: commander has not printed it.
    reportUsage(error.message);
  } else if (error instanceof CommanderError) {
    // commander already printed its message (or the help/version text), except under --json.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    if (json && error.exitCode !== 0) reportUsage(commanderMessage ?? (error.code === 'commander.help' ? 'a subcommand is missing (see --help)' : error.message));
  } else {
    const report = describeError(error, { verbose });
    if (json) writeJsonError(report.json);
    else process.stderr.write(`${report.lines.join('\n')}\n`);
    process.exitCode = report.exitCode;
  }
}
