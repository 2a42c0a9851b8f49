import { InvalidArgumentError, type Command } from 'commander';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('--port debe ser un entero de 0 a 65535.');
  return n;
}

function urlPath(value: string): string {
  if (!value.startsWith('/') || /[\s?#]/.test(value)) throw new InvalidArgumentError('--path debe empezar por "/" y no llevar espacios, "?" ni "#".');
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
  backfill?: boolean;
  json?: boolean;
  /** Global `--base-url`, for `--configure` and `--backfill`. */
  baseUrl?: string;
}

/** `merchant-kit listen`: receives, verifies and prints webhook deliveries on this machine. */
export function registerListenCommands(program: Command): void {
  program
    .command('listen')
    .description('Recibe webhooks en local, verifica su firma y los muestra (o reenvía a su aplicación)')
    .option('--port <n>', 'puerto (0 = cualquiera libre)', port, 4020)
    .option('--host <host>', 'dirección de escucha', '127.0.0.1')
    .option('--path <path>', 'ruta que recibe los webhooks', urlPath, '/webhooks')
    .option('--secret-stdin', 'lee el secreto de firma (whsec_…) de una línea de la entrada estándar')
    .option('--secret <secret>', 'secreto de firma (desaconsejado: se ve en la lista de procesos; use MERCHANT_KIT_WEBHOOK_SECRET o --secret-stdin)')
    .option('--forward-to <url>', 'reenvía cada webhook verificado a su aplicación (https, o http solo a localhost)')
    .option('--configure [url]', 'registra el webhook (PUT /webhook) con esta URL pública, o la del receptor, y usa el secreto devuelto')
    .option('--backfill', 'muestra antes todos los eventos del feed (GET /events) desde el principio')
    .option('--json', 'una línea JSON por evento')
    .addHelpText(
      'after',
      '\nEl secreto se toma de MERCHANT_KIT_WEBHOOK_SECRET, luego de --secret-stdin y solo después de --secret.\n' +
        '--configure y --backfill usan --base-url (o MERCHANT_KIT_BASE_URL) y MERCHANT_KIT_CREDENTIAL.',
    )
    .action(async (options: ListenOptions, command: Command) => {
      const { listenAction } = await import('./listen.js');
      const globals = command.optsWithGlobals();
      await listenAction({ ...options, json: options.json ?? globals.json, baseUrl: globals.baseUrl });
    });
}
