import { InvalidArgumentError, type Command } from 'commander';
import { parseTrustedProxies } from '../../../../emulator/net/trusted-proxies.js';
import { choiceOption, intOption } from '../../options.js';
import { registerExport } from './export.js';
import { registerClock } from './clock/index.js';
import { registerFaults } from './faults/index.js';
import { registerChaos } from './chaos/index.js';
import { registerLogs } from './logs/index.js';
import { registerStores } from './stores/index.js';
import { registerCredentials } from './credentials/index.js';
import { registerBalance } from './balance.js';
import { registerAccess } from './access/index.js';
import { registerCertificates } from './certificates/index.js';
import { ADMIN_TOKEN_HELP } from './control-url.js';
import { durationOption } from './duration.js';
import { adminTokenProblem } from '../../../server/admin-token.js';
import { ExitError } from '../../errors.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The default data folder of `emulator start` (DESIGN), also where `emulator stop` looks. */
export const DEFAULT_DATA_DIR = '.merchant-kit/emulator';

export interface StartOptions {
  port: number;
  host: string;
  data?: string;
  memory?: boolean;
  /** A PostgreSQL database that keeps the state (the team sandbox; env MERCHANT_KIT_DATABASE_URL). */
  databaseUrl?: string;
  clock: 'system' | 'manual';
  limits: 'on' | 'off';
  seed?: number;
  adminToken?: string;
  allowedHost: string[];
  /** Load balancers whose X-Forwarded-For names the client for the per-IP limits. */
  trustProxy: string[];
  /** On a shared sandbox, let deliveries and image downloads reach loopback and this machine's addresses. */
  allowLoopbackTargets?: boolean;
  json?: boolean;
  /** A state bundle to restore (`emulator export`). */
  from?: string;
  /** A catalog file (the format `catalog sync` reads) loaded into the test store at start. */
  catalog?: string;
  /** Start in the background and return once it listens. */
  detach?: boolean;
  /** With `--detach`: where its log goes (default `emulator.log` in the data folder). */
  logFile?: string;
  /** Request log on stderr. */
  verbose?: boolean;
  /** Integrators may ask for a test store (DESIGN: The operator's public test environment); needs --admin-token. */
  accessRequests: 'open' | 'closed';
  /** The address integrators use: the certificates' issuer. */
  publicUrl?: string;
}

/** `--trust-proxy`: IPs or CIDR ranges, comma-separated and repeatable; anything else is a usage error (exit 2). */
function trustedProxies(value: string, previous: string[]): string[] {
  try {
    return [...previous, ...parseTrustedProxies([value])];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--trust-proxy: /, ''));
  }
}

/**
 * The admin token of `emulator start`, from `--admin-token` or MERCHANT_KIT_ADMIN_TOKEN (set, even
 * empty, counts as given), checked before anything starts: a usage error (exit 2) that names where
 * it came from and never shows it.
 */
function checkedAdminToken(flag: string | undefined): string | undefined {
  const fromEnv = flag === undefined ? process.env.MERCHANT_KIT_ADMIN_TOKEN : undefined;
  const token = flag ?? fromEnv;
  if (token === undefined) return undefined;
  const problem = adminTokenProblem(token);
  if (problem) throw new ExitError(`${flag === undefined ? 'MERCHANT_KIT_ADMIN_TOKEN' : '--admin-token'} ${problem}.`, 2);
  return token;
}

export function registerEmulatorCommands(program: Command): void {
  const emulator = program
    .command('emulator')
    .description('The local emulator of the API (live and sandbox) and its sandbox tools')
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator start\n  $ merchant-kit emulator start --port 0 --memory --clock manual --json\n' +
        '  $ merchant-kit emulator clock advance 1h30m\n  $ merchant-kit emulator logs tail --status 4xx,5xx\n',
    );
  registerStart(emulator);

  emulator
    .command('wait')
    .description('Wait until the emulator at the base URL answers (GET /_emulator/health)')
    .option('--timeout <duration>', 'how long to wait: 30s, 2m, … or seconds', durationOption('--timeout', 1, 3600), 30)
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText(
      'after',
      '\nExit code 1 when nothing answers in time.\n\nExamples:\n  $ merchant-kit emulator start --detach && merchant-kit emulator wait\n' +
        '  $ merchant-kit --base-url http://127.0.0.1:4011 emulator wait --timeout 2m\n',
    )
    .action(async (options: { timeout: number }, command: Command) => (await import('./wait.js')).waitAction(options, command));

  emulator
    .command('reset')
    .description('Put a running emulator back to its seeded state (control API, from --base-url)')
    .option('--admin-token <token>', ADMIN_TOKEN_HELP)
    .addHelpText('after', '\nExamples:\n  $ merchant-kit emulator reset\n  $ merchant-kit --base-url http://127.0.0.1:4010/sandbox/v1 emulator reset\n')
    .action(async (_options: unknown, command: Command) => (await import('./reset.js')).resetAction(command));

  emulator
    .command('stop')
    .description('Stop the emulator serving a data folder (by its pid file)')
    .option('--data <dir>', `the emulator's data folder (default ${DEFAULT_DATA_DIR})`)
    .addHelpText('after', `\nExamples:\n  $ merchant-kit emulator stop\n  $ merchant-kit emulator stop --data ${DEFAULT_DATA_DIR}\n`)
    .action(async (options: { data?: string }, command: Command) => {
      const { stopAction } = await import('./stop.js');
      await stopAction({ data: options.data ?? DEFAULT_DATA_DIR, json: command.optsWithGlobals().json });
    });
  registerExport(emulator);
  registerClock(emulator);
  registerFaults(emulator);
  registerChaos(emulator);
  registerLogs(emulator);
  registerStores(emulator);
  registerAccess(emulator);
  registerCertificates(emulator);
  registerCredentials(emulator);
  registerBalance(emulator);
}

function registerStart(emulator: Command): void {
  emulator
    .command('start')
    .description('Start the emulator with its demo stores')
    .option('--port <n>', 'port (0 = any free port)', intOption('--port', 0, 65535), 4010)
    .option('--host <host>', 'address to listen on (non-loopback requires --admin-token)', '127.0.0.1')
    .option('--data <dir>', `folder of the databases, kept across restarts (default ${DEFAULT_DATA_DIR})`)
    .option('--memory', 'keep everything in memory, nothing on disk')
    .option('--database-url <url>', 'keep the state in PostgreSQL 14+: processes on one database are one sandbox (env MERCHANT_KIT_DATABASE_URL)')
    .option('--clock <mode>', 'clock: system or manual', choiceOption(['system', 'manual'] as const), 'system')
    .option('--limits <on|off>', 'rate limits', choiceOption(['on', 'off'] as const), 'on')
    .option('--seed <n>', 'seed for reproducible ids and simulated data', intOption('--seed', 0, 2 ** 31 - 1))
    .option('--admin-token <token>', "protects the control API and panel whatever the address (required off loopback; 16 characters or more); each store made by POST /_emulator/stores gets a store token of its own (env MERCHANT_KIT_ADMIN_TOKEN)")
    .option('--allowed-host <host>', 'another host name the emulator answers to (repeatable)', collect, [])
    .option('--trust-proxy <addresses>', "the load balancers in front (IPs or CIDR ranges, comma-separated, repeatable): the per-IP limits count the client their X-Forwarded-For names", trustedProxies, [])
    .option('--allow-loopback-targets', 'on a shared sandbox (beyond loopback, --admin-token or --database-url), let webhooks and image downloads reach loopback and this machine\'s own addresses (refused there by default)')
    .option('--access-requests <open|closed>', 'open: integrators may ask for a test store (the page /access, POST /_emulator/access-requests); needs --admin-token', choiceOption(['open', 'closed'] as const), 'closed')
    .option('--public-url <url>', 'the address integrators use (https://sandbox.example.com): the issuer of the certificates the sandbox issues')
    .option('--json', 'print one JSON "ready" line on stdout once listening')
    .option('--from <file>', 'restore a state bundle (from `emulator export`); prints fresh credentials for its integrations')
    .option('--catalog <file>', 'load a menu into the test store at start (the JSON or CSV that `catalog sync` reads)')
    .option('--detach', 'start in the background: print the ready line or banner, then return')
    .option('--log-file <file>', 'with --detach: the log file (default emulator.log in the data folder)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator start\n  $ merchant-kit emulator start --port 0 --memory --clock manual --seed 7 --json\n' +
        '  $ merchant-kit emulator start --catalog fixtures/catalog/asuncion-restaurant.json --detach\n' +
        '  $ merchant-kit emulator start --memory --from support-state.json.gz\n',
    )
    .action(async (options: StartOptions, command: Command) => {
      const globals = command.optsWithGlobals();
      const given = { ...options, adminToken: checkedAdminToken(options.adminToken), json: options.json ?? globals.json, verbose: globals.verbose };
      if (options.detach) return (await import('./detach.js')).startDetached(given);
      await (await import('./start.js')).startAction(given);
    });
}
