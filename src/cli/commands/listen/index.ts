import { InvalidArgumentError, type Command } from 'commander';
import { seconds } from '../feed/index.js';
import { eventsOption } from '../../options.js';

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('--port takes an integer from 0 to 65535.');
  return n;
}

function urlPath(value: string): string {
  if (!value.startsWith('/') || /[\s?#]/.test(value)) throw new InvalidArgumentError('--path must start with "/" and hold no spaces, "?" or "#".');
  return value;
}

export interface ListenOptions {
  port: number;
  host: string;
  path: string;
  /** Discouraged: visible in `ps`; the environment variable or `--secret-stdin` come first. */
  secret?: string;
  secretStdin?: boolean;
  forwardTo?: string;
  /** The public URL to register as the webhook; `true` (no value) means the listener's own URL. */
  configure?: string | true;
  /** With `--configure`: the webhook's event types (or `*`). */
  events?: string[];
  backfill?: boolean;
  cursorFile?: string;
  /** Seconds between reconciliations from the feed (with `--backfill`). */
  reconcileInterval: number;
  includeOwn?: boolean;
  json?: boolean;
}

/** spec: GET /events — "every 5 minutes as reconciliation with a webhook". */
export const DEFAULT_RECONCILE_SECONDS = 300;

/** `merchant-kit listen`: receives, verifies and prints webhook deliveries on this machine. */
export function registerListenCommands(program: Command): void {
  program
    .command('listen')
    .description('Receive webhooks locally, verify their signature and print them (or forward them to your app)')
    .option('--port <n>', 'port to listen on (0 = any free port)', port, 4020)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--path <path>', 'path that receives the webhooks', urlPath, '/webhooks')
    .option('--secret-stdin', 'read the signing secret (whsec_…) from one line of stdin')
    .option('--secret <secret>', 'signing secret (discouraged: it shows in the process list; use MERCHANT_KIT_WEBHOOK_SECRET or --secret-stdin)')
    .option('--forward-to <url>', 'forward each verified event to your app (https, or http only to loopback)')
    .option('--configure [url]', "point the webhook at this public URL, or the listener's own, on every run (PUT /webhook), with a secret the listener knows: kept from its previous run, or rotated")
    .option('--events <list>', 'with --configure: the webhook\'s event types, comma-separated, or * for all (default: keep the current list; * when new)', eventsOption())
    .option('--backfill', 'lose nothing: on start, handle every feed event (GET /events) that did not arrive by webhook, and reconcile from the feed while running')
    .option('--cursor-file <file>', 'with --backfill: where the feed position and the handled event ids are kept (default: per profile in the config folder)')
    .option('--reconcile-interval <seconds>', 'with --backfill: seconds between reconciliations from the feed', seconds('--reconcile-interval'), DEFAULT_RECONCILE_SECONDS)
    .option('--include-own', "also handle changes made by this integration itself (skipped by default, as the spec asks)")
    .option('--json', 'one JSON object per line')
    .addHelpText(
      'after',
      `
The secret comes from --secret-stdin, then --secret, then MERCHANT_KIT_WEBHOOK_SECRET (flags first).
Without one, --configure uses the secret a new webhook comes with, the one it kept from its previous
run (encrypted, in the profile's state folder) when nobody changed the webhook since, or else
rotates it (the previous secret still signs for 24 h); a new secret is printed once.
--configure and --backfill call the API of the target in use: --base-url / MERCHANT_KIT_BASE_URL,
MERCHANT_KIT_CREDENTIAL, or a profile (--profile, MERCHANT_KIT_PROFILE, the active profile).

Examples:
  $ merchant-kit listen --configure --backfill --forward-to http://localhost:3000/webhooks/merchant
  $ merchant-kit listen --configure --events order.created,order.status_changed`,
    )
    .action(async (options: ListenOptions, command: Command) => {
      const { listenAction } = await import('./listen.js');
      const globals = command.optsWithGlobals();
      await listenAction({ ...options, json: options.json ?? globals.json }, command);
    });
}
